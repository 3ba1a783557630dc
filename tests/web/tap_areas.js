// Each board target's tap area (its box, with the invisible hit area the page gives a small one):
// the hit areas that overlap another target or hit area, and the targets under 44 px whose
// centred 44 px square is free (they must have been grown); and the smallest tap area and board
// text on screen. tests/web/test_phone.py evaluates it.
() => {
  const svg = document.querySelector('#board svg');
  const box = (e) => e.getBoundingClientRect();
  const over = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const targets = [...svg.querySelectorAll('.target')];
  const hitOf = (t) => t.querySelector(':scope > .hit') ?? (t.nextElementSibling?.classList.contains('hit') ? t.nextElementSibling : null);
  const own = targets.map((t) => { const r = box(t); const h = hitOf(t);
    if (!h || t.contains(h)) return r;
    const q = box(h); return new DOMRect(Math.min(r.left, q.left), Math.min(r.top, q.top),
      Math.max(r.right, q.right) - Math.min(r.left, q.left), Math.max(r.bottom, q.bottom) - Math.min(r.top, q.top)); });
  const bare = targets.map((t) => { const h = hitOf(t); if (!h || !t.contains(h)) return box(t);
    const parts = [...t.children].filter((c) => c !== h).map(box).filter((r) => r.width || r.height);
    const l = Math.min(...parts.map((r) => r.left)), tp = Math.min(...parts.map((r) => r.top));
    return new DOMRect(l, tp, Math.max(...parts.map((r) => r.right)) - l, Math.max(...parts.map((r) => r.bottom)) - tp); });
  const hits = targets.map(hitOf);
  const overlapping = [], ungrown = [];
  targets.forEach((t, i) => {
    const h = hits[i];
    if (h && targets.some((u, j) => j !== i && (over(box(h), bare[j]) || (hits[j] && over(box(h), box(hits[j]))))))
      overlapping.push(t.dataset.target);
    const b = bare[i];
    if (b.width >= 44 && b.height >= 44) return;
    const w = Math.max(b.width, 44), hh = Math.max(b.height, 44);
    const square = new DOMRect(b.x + b.width / 2 - w / 2, b.y + b.height / 2 - hh / 2, w, hh);
    const free = targets.every((u, j) => j === i || (!over(square, bare[j]) && !(hits[j] && over(square, box(hits[j])))));
    if (free && (own[i].width < 43.5 || own[i].height < 43.5)) ungrown.push(t.dataset.target);
  });
  // the figures: the smallest tap area (a target with its hit area) and the smallest board text,
  // in CSS px as rendered (a text's font size times its scale on screen)
  const sides = own.map((r) => Math.min(r.width, r.height)).filter((v) => v > 0);
  const texts = [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim()).map((t) => {
    const m = t.getScreenCTM(); return parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b); });
  const smallestTarget = sides.length ? Math.min(...sides) : null;
  const smallestText = texts.length ? Math.min(...texts) : null;
  return { overlapping, ungrown, smallestTarget, smallestText };
}
