// Tiny element builders for HTML and SVG: h("div", {class: "x", onclick: f}, child, "text", …).

const SVG_NS = "http://www.w3.org/2000/svg";

function build(el, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "text") el.textContent = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style" && typeof value === "object") Object.assign(el.style, value);
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
  } else if (label && !el.title) {
    el.title = label;
  }
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
