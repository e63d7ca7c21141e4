// The changes of a diff page: listed from the JSON data block, filtered by table and kind.
// Every text from the inputs goes in through textContent, never as markup.
(function () {
  "use strict";
  const changes = JSON.parse(document.getElementById("diff-data").textContent);
  const list = document.getElementById("changes");
  const tableFilter = document.getElementById("table-filter");
  const boxes = Array.from(document.querySelectorAll("input[name=change]"));
  const shown = document.getElementById("shown");

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function where(loc) {
    if (!loc) return "—";
    let s = loc.path;
    if (loc.line !== null && loc.line !== undefined) s += ":" + loc.line + ":" + loc.column;
    if (loc.pointer) s += " " + loc.pointer;
    return s;
  }
  function value(v) {
    return v.absent ? "(absent)" : JSON.stringify(v.value, null, 1);
  }
  function render() {
    const table = tableFilter.value;
    const kinds = new Set(boxes.filter(b => b.checked).map(b => b.value));
    list.replaceChildren();
    let n = 0;
    for (const c of changes) {
      if ((table && c.kind !== table) || !kinds.has(c.change)) continue;
      n += 1;
      const item = el("div", undefined, "change");
      item.dataset.kind = c.kind;
      item.dataset.change = c.change;
      const title = el("div");
      title.append(el("span", c.change, "tag-" + c.change), " ", el("strong", c.kind), " ",
                   el("code", c.id));
      item.append(title);
      const sides = el("div", undefined, "diff-side");
      const old = el("div", undefined, "old");
      const neu = el("div", undefined, "new");
      old.append(el("div", "old: " + where(c.old)));
      neu.append(el("div", "new: " + where(c.new)));
      for (const f of c.fields) {
        old.append(el("pre", f.pointer + " " + value(f.old)));
        neu.append(el("pre", f.pointer + " " + value(f.new)));
      }
      sides.append(old, neu);
      item.append(sides);
      list.append(item);
    }
    shown.textContent = n + " of " + changes.length + " changes shown";
  }
  tableFilter.addEventListener("change", render);
  boxes.forEach(b => b.addEventListener("change", render));
  render();
}());
