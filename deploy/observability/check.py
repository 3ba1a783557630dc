"""CI check of deploy/observability/: the Prometheus alerting rules and the Grafana dashboard.

A dashboard panel or an alert that names a metric the service does not export shows nothing and
fires never, and nobody notices until the day it was needed. So every PromQL expression in both
files is parsed with a real PromQL parser (promql-parser, Prometheus's grammar), and every metric
name it selects must be one ``lawspeaker.observe.metrics.exported_names()`` lists, or one of the few that
Prometheus itself writes (:data:`PROMETHEUS_NAMES`). The rule file's structure is checked (each
alert with a ``for``, a severity and its summary and description), and so is the dashboard's (the
data source a template variable, every variable an expression uses defined). When promtool is
found (Debian's ``prometheus`` package ships it) it checks the rules as Prometheus loads them, and
the dashboard's expressions too, given to it as recording rules.

    .venv/bin/python deploy/observability/check.py [--alerts PATH] [--dashboard PATH]
        [--promtool PATH | --no-promtool]

Exit status 1 on any problem, each printed.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import promql_parser
import yaml

from lawspeaker.observe import metrics

HERE = Path(__file__).resolve().parent
ALERTS = HERE / "alerts.yaml"
DASHBOARD = HERE / "dashboard.json"

# Series Prometheus writes for every scrape target, which the service cannot list as its own.
PROMETHEUS_NAMES = frozenset({"up"})
SEVERITIES = frozenset({"critical", "warning", "info"})
RULE_KEYS = frozenset({"alert", "record", "expr", "for", "keep_firing_for", "labels", "annotations"})
GROUP_KEYS = frozenset({"name", "rules", "interval", "limit", "query_offset"})
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
RECORD_NAME = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*")

# Grafana's own variables, each replaced by a value of the kind Grafana puts there.
GRAFANA_BUILTINS = {
    "__rate_interval": "5m",
    "__interval": "1m",
    "__range": "6h",
    "__interval_ms": "60000",
    "__range_s": "21600",
    "__range_ms": "21600000",
}
# $name, ${name}, ${name:format} and the deprecated [[name]].
VARIABLE = re.compile(r"\$\{(\w+)(?::[^}]*)?\}|\[\[(\w+)(?::[^\]]*)?\]\]|\$(\w+)")
PROMETHEUS_DATASOURCE = "${datasource}"


def known_names() -> frozenset[str]:
    """Every metric name an expression may select: the service's samples and Prometheus's own."""
    return frozenset(metrics.exported_names()) | PROMETHEUS_NAMES


# -- PromQL -------------------------------------------------------------------------------------


def selected_names(expr: str) -> tuple[set[str], list[str]]:
    """The metric names ``expr`` selects, and what is wrong with it (its syntax, a name matcher
    that cannot be checked). ``{__name__="x"}`` counts as x; a ``__name__`` regex is returned as
    ``~regex``, for the caller to match against the names it knows."""
    try:
        tree = promql_parser.parse(expr)
    except ValueError as err:
        return set(), [f"does not parse: {err}"]
    names: set[str] = set()
    problems: list[str] = []

    def visit(node: promql_parser.Expr) -> bool:
        if isinstance(node, promql_parser.VectorSelector):
            if node.name:
                names.add(node.name)
            for matcher in node.matchers.matchers:
                if matcher.name != "__name__":
                    continue
                if matcher.op == promql_parser.MatchOp.Equal:
                    names.add(matcher.value)
                elif matcher.op == promql_parser.MatchOp.Re:
                    names.add("~" + matcher.value)
                else:
                    problems.append(f"selects metric names by {matcher}, which cannot be checked")
        return True

    promql_parser.walk(tree, visit)
    return names, problems


TARGET_LABELS = frozenset({"job", "instance"})  # the labels Prometheus adds to every series it scrapes


@functools.cache
def known_labels() -> dict[str, frozenset[str]]:
    """The labels each known name may be selected by: the service's own and Prometheus's target
    labels (``up`` has only those)."""
    labels = {name: found | TARGET_LABELS for name, found in metrics.exported_labels().items()}
    labels.update({name: TARGET_LABELS for name in PROMETHEUS_NAMES})
    return labels


def unknown_labels(expr: str) -> list[str]:
    """The label matchers of ``expr`` on a label its metric does not carry (a matcher that selects
    nothing, silently: an empty panel, an alert that never fires)."""
    try:
        tree = promql_parser.parse(expr)
    except ValueError:
        return []  # reported by selected_names
    labels = known_labels()
    out: list[str] = []

    def visit(node: promql_parser.Expr) -> bool:
        if isinstance(node, promql_parser.VectorSelector) and node.name in labels:
            for matcher in node.matchers.matchers:
                if matcher.name != "__name__" and matcher.name not in labels[node.name]:
                    out.append(f"{node.name}{{{matcher.name}}}")
        return True

    promql_parser.walk(tree, visit)
    return out


def unknown_names(names: set[str], known: frozenset[str]) -> list[str]:
    """The names (and ``~regex`` name matchers) among ``names`` that match nothing in ``known``."""
    out = []
    for name in sorted(names):
        if name.startswith("~"):
            pattern = re.compile(name[1:])
            if not any(pattern.fullmatch(k) for k in known):
                out.append(f'{{__name__=~"{name[1:]}"}}')
        elif name not in known:
            out.append(name)
    return out


def check_expr(where: str, expr: str, known: frozenset[str]) -> list[str]:
    """Problems with one PromQL expression: its syntax, and the names it selects."""
    names, problems = selected_names(expr)
    out = [f"{where}: {p}" for p in problems]
    for name in unknown_names(names, known):
        out.append(f"{where}: uses {name}, which the service does not export")
    for selector in unknown_labels(expr):
        out.append(f"{where}: selects by label {selector}, which that metric does not carry")
    if not names and not problems:
        out.append(f"{where}: selects no metric")
    return out


def valid_duration(text: str) -> bool:
    """A Prometheus duration (``5m``, ``1h30m``)."""
    try:
        promql_parser.parse_duration(text)
    except ValueError:
        return False
    return True


# -- the rule file ------------------------------------------------------------------------------


def check_rules(rules_file: Any, known: frozenset[str], where: str = "alerts.yaml") -> list[str]:
    """Problems with a parsed Prometheus rule file (``groups:`` of alerting and recording rules)."""
    if not isinstance(rules_file, dict) or set(rules_file) != {"groups"}:
        return [f"{where}: a mapping with the one key 'groups' expected"]
    groups = rules_file["groups"]
    if not isinstance(groups, list) or not groups:
        return [f"{where}: groups: a non-empty list expected"]
    problems: list[str] = []
    # Recording rules add names the other rules may use.
    recorded = {
        r["record"] for g in groups if isinstance(g, dict) for r in g.get("rules") or [] if "record" in r
    }
    known = known | frozenset(str(r) for r in recorded)
    group_names: set[str] = set()
    alert_names: set[str] = set()
    for i, group in enumerate(groups):
        if not isinstance(group, dict) or not isinstance(group.get("name"), str):
            problems.append(f"{where}: group {i}: a mapping with a name expected")
            continue
        gwhere = f"{where}: group {group['name']}"
        if group["name"] in group_names:
            problems.append(f"{gwhere}: a second group of that name")
        group_names.add(group["name"])
        for key in sorted(set(group) - GROUP_KEYS):
            problems.append(f"{gwhere}: unknown key {key}")
        if "interval" in group and not valid_duration(str(group["interval"])):
            problems.append(f"{gwhere}: interval {group['interval']!r} is not a duration")
        rules = group.get("rules")
        if not isinstance(rules, list) or not rules:
            problems.append(f"{gwhere}: rules: a non-empty list expected")
            continue
        for j, rule in enumerate(rules):
            problems += _check_rule(rule, f"{gwhere}, rule {j}", known, alert_names)
    return problems


def _check_rule(rule: Any, where: str, known: frozenset[str], alert_names: set[str]) -> list[str]:
    if not isinstance(rule, dict):
        return [f"{where}: a mapping expected"]
    problems = [f"{where}: unknown key {key}" for key in sorted(set(rule) - RULE_KEYS)]
    if ("alert" in rule) == ("record" in rule):
        return [*problems, f"{where}: exactly one of 'alert' and 'record' expected"]
    if "record" in rule:
        where = f"{where} ({rule['record']})"
        if not RECORD_NAME.fullmatch(str(rule["record"])):
            problems.append(f"{where}: {rule['record']!r} is not a metric name")
        for key in ("for", "keep_firing_for", "annotations"):
            if key in rule:
                problems.append(f"{where}: a recording rule has no {key}")
    else:
        name = str(rule["alert"])
        where = f"{where} ({name})"
        if not NAME.fullmatch(name):
            problems.append(f"{where}: {name!r} is not a valid alert name")
        if name in alert_names:
            problems.append(f"{where}: a second alert of that name")
        alert_names.add(name)
        problems += _check_alert(rule, where)
    expr = rule.get("expr")
    if not isinstance(expr, str) or not expr.strip():
        problems.append(f"{where}: no expr")
    else:
        problems += check_expr(f"{where}: expr", expr, known)
    return problems


def _check_alert(rule: Mapping[str, Any], where: str) -> list[str]:
    """What an operator needs of an alert: it waits (``for``), says how bad, what and what to do."""
    problems = []
    for key in ("for", "keep_firing_for"):
        if key in rule and not valid_duration(str(rule[key])):
            problems.append(f"{where}: {key} {rule[key]!r} is not a duration")
    if "for" not in rule:
        problems.append(f"{where}: no 'for': one bad scrape would page")
    labels = rule.get("labels")
    if not isinstance(labels, dict) or labels.get("severity") not in SEVERITIES:
        problems.append(f"{where}: labels.severity: one of {sorted(SEVERITIES)} expected")
    annotations = rule.get("annotations")
    for key in ("summary", "description"):
        if not isinstance(annotations, dict) or not str(annotations.get(key) or "").strip():
            problems.append(f"{where}: annotations.{key}: missing")
    return problems


# -- the dashboard ------------------------------------------------------------------------------


def substitute(expr: str, variables: set[str]) -> tuple[str, list[str]]:
    """``expr`` with Grafana's variables replaced as Grafana would, ready for a PromQL parser; and
    the variables it uses that are neither the dashboard's nor Grafana's own."""
    undefined: list[str] = []

    def value(match: re.Match[str]) -> str:
        name = next(g for g in match.groups() if g)
        if name in GRAFANA_BUILTINS:
            return GRAFANA_BUILTINS[name]
        if name not in variables:
            undefined.append(name)
        return f"grafana_variable_{name}"  # a label value, or a name the check then reports

    return VARIABLE.sub(value, expr), undefined


def _panels(panels: Sequence[Any]) -> Iterator[dict[str, Any]]:
    """Every panel, those inside (collapsed) rows included."""
    for panel in panels:
        if isinstance(panel, dict):
            yield panel
            yield from _panels(panel.get("panels") or [])


def _is_template_datasource(datasource: Any) -> bool:
    if isinstance(datasource, str):
        return datasource == PROMETHEUS_DATASOURCE
    return isinstance(datasource, dict) and datasource.get("uid") == PROMETHEUS_DATASOURCE


def dashboard_exprs(dashboard: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(where, PromQL as written) for every panel target and every query variable's selector."""
    for panel in _panels(dashboard.get("panels") or []):
        for target in panel.get("targets") or []:
            where = f"panel {panel.get('title')!r} (id {panel.get('id')}), target {target.get('refId')}"
            yield where, str(target.get("expr", ""))
    for var in (dashboard.get("templating") or {}).get("list") or []:
        if var.get("type") != "query":
            continue
        query = var.get("query")
        text = str(query.get("query", "") if isinstance(query, dict) else query)
        where = f"variable {var.get('name')}"
        found = re.fullmatch(r"\s*label_values\((.*),\s*(\w+)\s*\)\s*", text, re.S)
        if found:
            yield where, found[1]
        elif re.fullmatch(r"\s*query_result\((.*)\)\s*", text, re.S):
            yield where, text.strip()[len("query_result(") : -1]
        else:
            yield where, f"<a query this check cannot read: {text}>"


def check_dashboard(dashboard: Any, known: frozenset[str], where: str = "dashboard.json") -> list[str]:
    """Problems with a parsed Grafana dashboard: its structure, variables and every expression."""
    if not isinstance(dashboard, dict):
        return [f"{where}: a JSON object expected"]
    problems: list[str] = []
    version = dashboard.get("schemaVersion")
    if not isinstance(version, int) or version < 36:
        problems.append(f"{where}: schemaVersion {version!r}: 36 or later expected (Grafana 9+)")
    for key in ("title", "uid"):
        if not dashboard.get(key):
            problems.append(f"{where}: no {key}")
    variables = (dashboard.get("templating") or {}).get("list") or []
    names = {str(v.get("name")) for v in variables}
    datasource = [v for v in variables if v.get("name") == "datasource"]
    if (
        len(datasource) != 1
        or datasource[0].get("type") != "datasource"
        or datasource[0].get("query") != "prometheus"
    ):
        problems.append(
            f"{where}: one template variable 'datasource' of type datasource, query prometheus, expected"
        )
    for var in variables:
        if var.get("type") == "query" and not _is_template_datasource(var.get("datasource")):
            problems.append(f"{where}: variable {var.get('name')}: its datasource is not ${{datasource}}")
    ids: set[Any] = set()
    for panel in _panels(dashboard.get("panels") or []):
        pwhere = f"{where}: panel {panel.get('title')!r} (id {panel.get('id')})"
        if panel.get("id") in ids:
            problems.append(f"{pwhere}: a second panel with that id")
        ids.add(panel.get("id"))
        grid = panel.get("gridPos") or {}
        if not all(isinstance(grid.get(k), int) for k in "hwxy") or grid["x"] + grid["w"] > 24:
            problems.append(f"{pwhere}: gridPos: h, w, x, y within 24 columns expected")
        if panel.get("type") == "row":
            continue
        targets = panel.get("targets") or []
        if not targets:
            problems.append(f"{pwhere}: no targets")
        if not _is_template_datasource(panel.get("datasource")):
            problems.append(f"{pwhere}: its datasource is not ${{datasource}}")
        refs = [t.get("refId") for t in targets]
        if len(set(refs)) != len(refs):
            problems.append(f"{pwhere}: refIds repeat: {refs}")
        for target in targets:
            if "datasource" in target and not _is_template_datasource(target["datasource"]):
                problems.append(
                    f"{pwhere}, target {target.get('refId')}: its datasource is not ${{datasource}}"
                )
    for ewhere, expr in dashboard_exprs(dashboard):
        text, undefined = substitute(expr, names)
        for name in undefined:
            problems.append(f"{where}: {ewhere}: uses ${name}, not a variable of the dashboard")
        problems += check_expr(f"{where}: {ewhere}", text, known)
    return problems


def dashboard_as_rules(dashboard: Mapping[str, Any]) -> dict[str, Any]:
    """The dashboard's expressions (variables substituted) as a rule file of recording rules, so
    that promtool parses them with Prometheus's own parser too."""
    names = {str(v.get("name")) for v in (dashboard.get("templating") or {}).get("list") or []}
    rules = []
    for i, (where, expr) in enumerate(dashboard_exprs(dashboard)):
        slug = re.sub(r"\W+", "_", where).strip("_").lower()
        rules.append({"record": f"dashboard:{i}:{slug}", "expr": substitute(expr, names)[0]})
    return {"groups": [{"name": "dashboard", "rules": rules}]}


# -- promtool -----------------------------------------------------------------------------------


def promtool_rules(promtool: str, path: Path, where: str) -> list[str]:
    """``promtool check rules path``: nothing when it succeeds, else its complaints."""
    done = subprocess.run(
        [promtool, "check", "rules", str(path)], capture_output=True, text=True, timeout=60, check=False
    )
    if done.returncode == 0:
        return []
    lines = [line.strip() for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    return [f"{where} (promtool): {line}" for line in lines if not line.startswith(("Checking ", "FAILED"))]


def check(
    alerts: Path = ALERTS, dashboard: Path = DASHBOARD, promtool: str | None = None
) -> tuple[list[str], str]:
    """Problems with both files, and a line saying what was checked."""
    known = known_names()
    problems: list[str] = []
    try:
        rules_file = yaml.safe_load(alerts.read_text())
    except (OSError, yaml.YAMLError) as err:
        rules_file = None
        problems.append(f"{alerts.name}: cannot read: {err}")
    else:
        problems += check_rules(rules_file, known, alerts.name)
    try:
        board = json.loads(dashboard.read_text())
    except (OSError, ValueError) as err:
        board = None
        problems.append(f"{dashboard.name}: cannot read: {err}")
    else:
        problems += check_dashboard(board, known, dashboard.name)
    if promtool:
        if rules_file is not None:
            problems += promtool_rules(promtool, alerts, alerts.name)
        if isinstance(board, dict):
            with tempfile.TemporaryDirectory() as tmp:
                as_rules = Path(tmp) / "dashboard-rules.yaml"
                as_rules.write_text(yaml.safe_dump(dashboard_as_rules(board), sort_keys=False))
                problems += promtool_rules(promtool, as_rules, dashboard.name)
    alerts_n = sum(
        len(g.get("rules") or []) for g in (rules_file or {}).get("groups") or [] if isinstance(g, dict)
    )
    exprs_n = len(list(dashboard_exprs(board))) if isinstance(board, dict) else 0
    summary = (
        f"{alerts.name}: {alerts_n} rules; {dashboard.name}: {exprs_n} expressions; each parsed and"
        f" naming only metrics the service exports ({len(known)} names)"
        + ("; promtool checked both" if promtool else "; promtool not run")
    )
    return problems, summary


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--alerts", type=Path, default=ALERTS)
    parser.add_argument("--dashboard", type=Path, default=DASHBOARD)
    tool = parser.add_mutually_exclusive_group()
    tool.add_argument("--promtool", help="promtool to run (default: promtool on PATH, if any)")
    tool.add_argument("--no-promtool", action="store_true", help="do not run promtool")
    args = parser.parse_args(argv)
    promtool = None if args.no_promtool else (args.promtool or shutil.which("promtool"))
    if args.promtool and not shutil.which(args.promtool):
        print(f"--promtool {args.promtool}: not found", file=sys.stderr)
        return 1
    problems, summary = check(args.alerts, args.dashboard, promtool)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    print(summary)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
