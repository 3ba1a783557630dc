/** Small DOM builders: the frontend uses no UI library. */

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

function fill<E extends Element>(el: E, attrs: Attrs, children: Child[]): E {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") {
      el.addEventListener(name.replace(/^on/, "").toLowerCase(), value);
    } else if (name === "style" && (el instanceof HTMLElement || el instanceof SVGElement)) {
      // through the CSSOM: the page's Content-Security-Policy (style-src 'self') refuses a style attribute
      el.style.cssText = String(value);
    } else {
      el.setAttribute(name, value === true ? "" : String(value));
    }
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** An HTML element: `h("button", { class: "x", onclick: f }, "Text")`. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  return fill(document.createElement(tag), attrs, children);
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** An SVG element: `svg("circle", { cx: 5, cy: 5, r: 2 })`. */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  return fill(document.createElementNS(SVG_NS, tag) as SVGElementTagNameMap[K], attrs, children);
}

/**
 * A player's display name: their own words, put on the page as a text node (never parsed as
 * markup) inside a `<bdi>`, so that a right-to-left name cannot reorder the text around it.
 */
export function playerName(name: string): HTMLElement {
  return h("bdi", { class: "name" }, name);
}

/** A `<title>` for an SVG element (its accessible name and tooltip). */
export function title(text: string): SVGTitleElement {
  return svg("title", {}, text);
}

/** Seat colours the games share, by seat (colour-blind-safe; paired with names and shapes). */
export const SEAT_COLOURS = ["#f2efe6", "#2b2b33", "#c8553d", "#3d7ec8", "#4f9d4f", "#b08a2e"];
/** A readable text colour on each seat colour. */
export const SEAT_INK = ["#1b1b1b", "#ffffff", "#ffffff", "#ffffff", "#ffffff", "#1b1b1b"];
