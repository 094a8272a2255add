// Tiny element builders for HTML and SVG: h("div", {class: "x", onclick: f}, child, "text", …).

const SVG_NS = "http://www.w3.org/2000/svg";

/** ``style``'s properties ({color: "red", "--x": 2}) set through the CSSOM: the page's Content-Security-Policy
 * refuses a ``style`` attribute. */
function setStyle(el, style) {
  for (const [name, value] of Object.entries(style)) {
    if (name.startsWith("--")) el.style.setProperty(name, String(value));
    else el.style[name] = value;
  }
}

function build(el, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "text") el.textContent = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style") setStyle(el, value);
    else if (key in el && !(el instanceof SVGElement) && key !== "list") el[key] = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** An HTML element. */
export function h(tag, attrs, ...children) {
  return build(document.createElement(tag), attrs, children);
}

/** An SVG element. */
export function s(tag, attrs, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** Make ``el`` a clickable choice for ``action`` (a legal action exactly as the server sent it). */
export function choice(el, action, label) {
  el.dataset.action = JSON.stringify(action);
  el.classList.add("target");
  if (el instanceof SVGElement) {
    el.setAttribute("tabindex", "0");
    el.setAttribute("role", "button");
    if (label) {
      el.setAttribute("aria-label", label);
      el.prepend(s("title", {}, label));
    }
  } else {
    if (!(el instanceof HTMLButtonElement)) {
      // a card or a chip: reachable with Tab, and Enter/Space choose it (the page's keydown handler)
      el.setAttribute("tabindex", "0");
      el.setAttribute("role", "button");
      if (label) el.setAttribute("aria-label", label);
    }
    if (label && !el.title) el.title = label;
  }
  return el;
}

/** Make ``el`` read by a screen reader as one picture named ``label`` (a card, a pawn: glyphs and numbers that say
 * nothing read one by one); ``choice`` turns it into a button with a label of its own. */
export function pictured(el, label) {
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", label);
  return el;
}

/** Make ``el`` a local pick (a pawn, a card or a piece chosen before the action's target): ``onPick`` runs on a
 * click or Enter/Space, and the event goes no further (a pick inside a target is not that target's choice). */
export function pickable(el, onPick) {
  el.setAttribute("tabindex", "0");
  el.setAttribute("role", "button");
  const run = (event) => {
    event.stopPropagation();
    event.preventDefault();
    onPick();
  };
  el.addEventListener("click", run);
  el.addEventListener("keydown", (event) => (event.key === "Enter" || event.key === " ") && run(event));
  return el;
}

// -- the keyboard focus across a drawing ---------------------------------------------------------------
// The page draws itself anew on every change, which would throw a keyboard player's focus back to the top of the
// page each time.  ``keepFocus(root, draw)`` finds the focused control again in what ``draw`` put in ``root`` (the
// same kind of element with the same id, name, data and words), else the part of the page it was in (an element
// with an id, or the board).

const REGIONS = "[id], .board";

function signature(el) {
  return [el.tagName, el.id, el.getAttribute("name") || "", JSON.stringify({ ...el.dataset }), el.textContent.trim().slice(0, 80)].join("\u0001");
}

function focusKey(root) {
  const el = document.activeElement;
  if (!el || el === root || !root.contains(el)) return null;
  const sig = signature(el);
  const twins = [...root.getElementsByTagName(el.tagName)].filter((other) => signature(other) === sig);
  const region = el.closest(REGIONS);
  const key = { sig, tag: el.tagName, index: twins.indexOf(el), region: null };
  if (region && region !== root && root.contains(region)) key.region = region.id ? `#${CSS.escape(region.id)}` : ".board";
  if (el.selectionStart !== undefined) {
    try {
      key.selection = [el.selectionStart, el.selectionEnd];
    } catch {
      // not a text field (a number field, a checkbox)
    }
  }
  return key;
}

function restoreFocus(root, key) {
  if (!key) return;
  const now = document.activeElement;
  if (now && now !== document.body && now !== document.documentElement) return; // focus went somewhere on its own
  const twins = [...root.getElementsByTagName(key.tag)].filter((other) => signature(other) === key.sig);
  let el = twins[Math.min(key.index, twins.length - 1)];
  el?.focus({ preventScroll: true });
  if (document.activeElement !== el) {
    // gone, or no longer focusable (a card picked is no choice any more): the part of the page it was in
    el = key.region && root.querySelector(key.region);
    if (!el) return;
    if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "-1"); // Tab goes on from there
    el.focus({ preventScroll: true });
  }
  if (key.selection && el.setSelectionRange) {
    try {
      el.setSelectionRange(...key.selection);
    } catch {
      // not a text field
    }
  }
}

/** Run ``draw`` (which replaces what ``root`` holds) keeping the keyboard focus where it was, as near as can be. */
export function keepFocus(root, draw) {
  const key = focusKey(root);
  const result = draw();
  restoreFocus(root, key);
  return result;
}

// -- SVG words that must stay in their box ----------------------------------------------------------------
/** Mark an SVG ``text`` as having at most ``width`` user units (French words run longer than English ones);
 * ``fitTexts`` shrinks it once it is on the page, where it can be measured. */
export function fit(el, width) {
  el.dataset.fit = String(width);
  return el;
}

/** Narrow the letters of every text marked by ``fit`` under ``root`` that is wider than its room, down to ``SQUEEZE``
 * of their width, then shrink its font for the rest: narrower letters keep a phone's words tall enough to read. */
const SQUEEZE = 0.8;
export function fitTexts(root) {
  for (const el of root.querySelectorAll("text[data-fit]")) {
    const room = Number(el.dataset.fit);
    const width = el.getComputedTextLength(); // 0 when not shown
    if (width <= room) continue;
    if (width * SQUEEZE > room) el.style.fontSize = `${(parseFloat(getComputedStyle(el).fontSize) * room) / (width * SQUEEZE)}px`;
    el.setAttribute("textLength", String(room));
    el.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
}
