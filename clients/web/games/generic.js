// The renderer every game starts from: no drawing, and actions and events spelled out from their fields.

import { h } from "../dom.js";

function fields(obj) {
  return Object.entries(obj)
    .filter(([key]) => key !== "type")
    .map(([key, value]) => `${key} ${Array.isArray(value) ? value.join("/") : value}`)
    .join(", ");
}

function words(type) {
  return type.replace(/_/g, " ");
}

export default {
  board: (ctx) => h("p", { class: "no-board" }, ctx.t("table.no_renderer")),
  panels: () => [],
  seat: () => null,
  prompt: (ctx) => {
    const owed = ctx.table.prompts;
    if (!owed.length) return null;
    const mine = owed.find((p) => p.seat === ctx.me);
    if (mine) return `${ctx.t("table.your_decision")}: ${words(mine.kind)}`;
    return ctx.t("table.waiting_for", { names: owed.map((p) => ctx.name(p.seat)).join(ctx.t("table.and")) });
  },
  help: () => null,
  label: (ctx, action) => {
    const rest = fields(action);
    return rest ? `${words(action.type)}: ${rest}` : words(action.type);
  },
  primary: () => false,
  logLines: (ctx, entry) => entry.events.map((e) => `${words(e.type)}${fields(e) ? ` (${fields(e)})` : ""}`),
  scoreColumns: () => [],
  tiebreak: () => () => 0,
};
