// The words a mouse shows on hover (a ``title``: a card's name, a player's count of Haunt cards, what "away" means)
// shown on a tap as well: a phone has no hover.

import { h } from "./dom.js";

const SHOWN_MS = 4000;
let shown = null;
let timer = 0;

/** The element a tap on ``target`` is about and its hover words: its own ``title`` or an ancestor's (an SVG drawing's
 * ``<title>``); none inside a choice (the tap plays it) or a form's field. */
function hoverWords(target) {
  for (let el = target; el instanceof Element && el !== document.body; el = el.parentElement) {
    if ("action" in el.dataset || el.matches("select, option, input, textarea")) return null;
    if (el instanceof HTMLElement && el.title) return [el, el.title];
    const title = el instanceof SVGElement && [...el.children].find((child) => child.tagName === "title");
    if (title) return [el, title.textContent];
  }
  return null;
}

function hide() {
  clearTimeout(timer);
  shown?.remove();
  shown = null;
}

/** On a tap (a click) that is no choice, show the hover words of what was tapped under it for a few seconds. */
function showTip(event) {
  hide();
  const found = hoverWords(event.target);
  if (!found) return;
  const [el, words] = found;
  shown = h("div", { class: "tip", "aria-hidden": "true" }, words); // a screen reader hears the element's own label
  document.body.append(shown);
  const box = el.getBoundingClientRect();
  const room = document.documentElement.clientWidth;
  const left = Math.min(Math.max(4, box.left + (box.width - shown.offsetWidth) / 2), room - shown.offsetWidth - 4);
  shown.style.left = `${left + scrollX}px`; // (the CSSOM: the page's CSP refuses a style attribute)
  shown.style.top = `${box.bottom + scrollY + 6}px`;
  timer = setTimeout(hide, SHOWN_MS);
}

document.addEventListener("click", showTip);
