// quizkit HTML findings report: shows the findings of the data block a page at a time,
// grouped by file, with filters. Text from inputs is only ever set as textContent.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("quizkit-data").textContent);
  var SEVERITY = {3: "error", 2: "warning", 1: "info"};
  var PAGE = 100;
  var list = document.getElementById("finding-list");
  var shown = document.getElementById("shown");
  var ruleFilter = document.getElementById("rule-filter");
  var fileFilter = document.getElementById("file-filter");
  var sevBoxes = Array.prototype.slice.call(document.querySelectorAll(".sev-filter"));
  var filtered = [];
  var page = 0;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function num(n) { return n.toLocaleString("en-US"); }

  function plural(n, word) { return num(n) + " " + word + (n === 1 ? "" : "s"); }

  function apply() {
    var sevs = {};
    sevBoxes.forEach(function (b) { if (b.checked) sevs[b.value] = true; });
    var rule = ruleFilter.value;
    var file = fileFilter.value.trim().toLowerCase();
    var fileOk = data.files.map(function (p) {
      return !file || p.toLowerCase().indexOf(file) !== -1;
    });
    filtered = [];
    for (var i = 0; i < data.findings.length; i++) {
      var f = data.findings[i];
      if (sevs[f[1]] && (!rule || f[2] === rule) && fileOk[f[0]]) filtered.push(i);
    }
    page = 0;
    render();
  }

  function snippet(f) {
    var s = f[8];
    if (!s) return null;
    var lines = data.lines[f[0]] || {};
    var pre = el("pre", "snippet");
    for (var n = s[0]; n <= s[1]; n++) {
      var text = lines[n + ":" + s[5]];
      if (text === undefined) continue;
      var row = el("span", n === s[2] ? "hit" : "");
      row.appendChild(el("span", "ln", n));
      if (n === s[2]) {
        row.appendChild(document.createTextNode(text.slice(0, s[3])));
        row.appendChild(el("mark", "", text.slice(s[3], s[4])));
        row.appendChild(document.createTextNode(text.slice(s[4])));
      } else {
        row.appendChild(document.createTextNode(text));
      }
      pre.appendChild(row);
      pre.appendChild(document.createTextNode("\n"));
    }
    return pre;
  }

  function findingEl(f) {
    var box = el("div", "finding");
    box.setAttribute("data-severity", SEVERITY[f[1]]);
    var head = el("div", "head");
    var where = f[3] === null ? "-" : f[3] + (f[4] === null ? "" : ":" + f[4]);
    head.appendChild(el("span", "mono", where));
    head.appendChild(el("span", "sev sev-" + SEVERITY[f[1]], SEVERITY[f[1]]));
    var link = el("a", "rule-link", f[2] + " " + (data.rules[f[2]] || {name: ""}).name);
    link.href = "#rule-" + encodeURIComponent(f[2]);
    link.title = (data.rules[f[2]] || {summary: ""}).summary;
    head.appendChild(link);
    if (f[5]) head.appendChild(el("code", "ptr", f[5]));
    if (f[7] !== null) head.appendChild(el("span", "ptr", "record " + f[7]));
    box.appendChild(head);
    box.appendChild(el("div", "msg", f[6]));
    var pre = snippet(f);
    if (pre) box.appendChild(pre);
    return box;
  }

  function pager(holder, pages) {
    holder.replaceChildren();
    if (pages <= 1) return;
    function go(name, label, to) {
      var b = el("button", "", label);
      b.title = name + " page";
      b.setAttribute("data-page", name);
      b.disabled = to === page || to < 0 || to >= pages;
      b.addEventListener("click", function () { page = to; render(); });
      return b;
    }
    holder.appendChild(go("first", "«", 0));
    holder.appendChild(go("previous", "← previous", page - 1));
    holder.appendChild(el("span", "", "page " + num(page + 1) + " of " + num(pages)));
    holder.appendChild(go("next", "next →", page + 1));
    holder.appendChild(go("last", "»", pages - 1));
  }

  function render() {
    var pages = Math.max(1, Math.ceil(filtered.length / PAGE));
    var start = page * PAGE;
    var end = Math.min(filtered.length, start + PAGE);
    shown.textContent = filtered.length === data.findings.length
      ? plural(filtered.length, "finding")
      : num(filtered.length) + " of " + plural(data.findings.length, "finding") + " shown";
    shown.setAttribute("data-value", String(filtered.length));
    var frag = document.createDocumentFragment();
    var file = -1;
    for (var i = start; i < end; i++) {
      var f = data.findings[filtered[i]];
      if (f[0] !== file) {
        file = f[0];
        frag.appendChild(el("div", "file mono", data.files[file]));
      }
      frag.appendChild(findingEl(f));
    }
    if (!filtered.length) {
      frag.appendChild(el("p", "empty",
        data.findings.length ? "no finding matches the filters" : "no findings"));
    }
    list.replaceChildren(frag);
    pager(document.getElementById("pager-top"), pages);
    pager(document.getElementById("pager-bottom"), pages);
  }

  var fileList = document.getElementById("file-list");
  var withFindings = {};
  data.findings.forEach(function (f) { withFindings[f[0]] = true; });
  Object.keys(withFindings).slice(0, 1000).forEach(function (i) {
    var opt = document.createElement("option");
    opt.value = data.files[i];
    fileList.appendChild(opt);
  });

  sevBoxes.forEach(function (b) { b.addEventListener("change", apply); });
  ruleFilter.addEventListener("change", apply);
  fileFilter.addEventListener("input", apply);
  Array.prototype.forEach.call(document.querySelectorAll("a.filter-rule"), function (a) {
    a.addEventListener("click", function () {
      ruleFilter.value = a.getAttribute("data-rule");
      apply();
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll("a.filter-file"), function (a) {
    a.addEventListener("click", function () {
      fileFilter.value = data.files[Number(a.getAttribute("data-file"))];
      apply();
    });
  });
  apply();
})();
