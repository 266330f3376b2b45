"use strict";
(function () {
  var charts = [];
  var active = null;

  function Chart(sec) {
    this.sec = sec;
    this.data = JSON.parse(sec.querySelector("script.data").textContent);
    this.last = this.data.length - 1;
    this.step = 0;
    var self = this;
    sec.querySelector("button.first").addEventListener("click", function () { self.go(0); });
    sec.querySelector("button.prev").addEventListener("click", function () { self.go(self.step - 1); });
    sec.querySelector("button.next").addEventListener("click", function () { self.go(self.step + 1); });
    sec.querySelector("button.last").addEventListener("click", function () { self.go(self.last); });
    sec.querySelectorAll("svg .row").forEach(function (r) {
      r.addEventListener("click", function () { self.go(+r.getAttribute("data-step")); });
    });
    sec.addEventListener("mousedown", function () { activate(self); });
    this.box = sec.querySelector(".svgbox");
    this.heads = sec.querySelector("svg .heads");
    if (this.box && this.heads) this.box.addEventListener("scroll", function () { self.stick(); });
  }

  // stick keeps the lifeline heads at the top of the chart's box however
  // far it is scrolled.
  Chart.prototype.stick = function () {
    if (this.box && this.heads) this.heads.setAttribute("transform", "translate(0," + this.box.scrollTop + ")");
  };

  // reveal scrolls the chart's box, and only it (the page stays where
  // the reader is: at the verdicts when it opens), so that the current
  // step's row shows below the lifeline heads.
  Chart.prototype.reveal = function () {
    var row = this.sec.querySelector("svg .row.cur"), box = this.box;
    if (!row || !box || box.scrollHeight <= box.clientHeight) return;
    var r = row.getBoundingClientRect(), b = box.getBoundingClientRect();
    var head = this.heads ? this.heads.getBoundingClientRect().height : 0;
    if (this.step === 0) box.scrollTop = 0;
    else if (r.top < b.top + head) box.scrollTop -= b.top + head - r.top;
    else if (r.bottom > b.top + box.clientHeight) box.scrollTop += r.bottom - (b.top + box.clientHeight);
    this.stick();
  };

  Chart.prototype.go = function (k) {
    k = Math.max(0, Math.min(this.last, k));
    this.step = k;
    activate(this);
    var sec = this.sec;
    sec.setAttribute("data-step", String(k));
    sec.querySelectorAll("svg [data-step]").forEach(function (e) {
      e.classList.toggle("cur", +e.getAttribute("data-step") === k);
    });
    sec.querySelectorAll("svg .msg").forEach(function (g) {
      var sent = +g.getAttribute("data-sent"), end = +g.getAttribute("data-end");
      g.classList.toggle("hot", sent === k || end === k);
      g.classList.toggle("dim", sent > k);
    });
    sec.querySelector("button.first").disabled = k === 0;
    sec.querySelector("button.prev").disabled = k === 0;
    sec.querySelector("button.next").disabled = k === this.last;
    sec.querySelector("button.last").disabled = k === this.last;
    var d = this.data[k];
    sec.querySelector(".pos").textContent = "step " + k + " / " + this.last;
    sec.querySelector(".act").textContent = d.action;
    sec.querySelector(".sthead").textContent = k === 0 ? "Initial state" : "State after step " + k + ": " + d.action;
    sec.querySelector(".notes").textContent = k === 0 ? "" : d.notes.join("\n");
    var tbl = sec.querySelector("table.vars");
    tbl.textContent = "";
    var group = null;
    d.vars.forEach(function (v) {
      var g = v[0].indexOf("queue_") === 0 ? "queue" : v[0].split(".")[0];
      var tr = document.createElement("tr");
      if (group !== null && g !== group) tr.className = "group";
      group = g;
      if (v[2] !== "" && k > 0) tr.classList.add("chg");
      var a = document.createElement("td"), b = document.createElement("td");
      a.textContent = v[0];
      if (v[2] !== "" && k > 0) {
        var o = document.createElement("span");
        o.className = "old";
        o.textContent = v[2];
        b.appendChild(o);
      }
      b.appendChild(document.createTextNode(v[1]));
      tr.appendChild(a);
      tr.appendChild(b);
      tbl.appendChild(tr);
    });
    this.reveal();
  };

  function activate(c) {
    if (active === c) return;
    if (active) active.sec.classList.remove("active");
    active = c;
    c.sec.classList.add("active");
  }

  document.querySelectorAll("section.chart").forEach(function (sec) {
    var c = new Chart(sec);
    charts.push(c);
    // At the last step: the whole run drawn, and the state it ends in (the
    // violation); First replays it from the start.
    c.go(c.last);
  });
  if (charts.length) activate(charts[0]);

  document.addEventListener("keydown", function (e) {
    if (!active || e.altKey || e.ctrlKey || e.metaKey) return;
    var k = { ArrowRight: active.step + 1, ArrowDown: active.step + 1, ArrowLeft: active.step - 1, ArrowUp: active.step - 1, Home: 0, End: active.last }[e.key];
    if (k === undefined) return;
    e.preventDefault();
    active.go(k);
  });

  // A hook for tests: #press=next,next,key:ArrowRight,prev clicks the
  // buttons of the active chart and presses keys, then writes the presses
  // and the step after each (data-trail) on the body.
  var m = /^#press=(.*)$/.exec(location.hash);
  if (m && active) {
    var trail = [];
    m[1].split(",").forEach(function (a) {
      if (a.indexOf("key:") === 0) {
        document.dispatchEvent(new KeyboardEvent("keydown", { key: a.slice(4), bubbles: true }));
      } else {
        var btn = active.sec.querySelector("button." + a);
        if (btn) btn.click();
      }
      trail.push(active.step);
    });
    document.body.setAttribute("data-pressed", m[1]);
    document.body.setAttribute("data-trail", trail.join(","));
    // Where things are after the presses: the page's scroll, whether the
    // verdicts and the current step's row are in view, and how far the
    // lifeline heads are from the top of the chart's box.
    var box = active.box, row = active.sec.querySelector("svg .row.cur");
    var props = document.querySelector("table.props");
    if (box && row) {
      var b = box.getBoundingClientRect(), r = row.getBoundingClientRect();
      var h = active.heads ? active.heads.getBoundingClientRect() : b;
      document.body.setAttribute("data-view", [
        "page=" + Math.round(window.scrollY),
        "verdicts=" + (props && props.getBoundingClientRect().bottom <= window.innerHeight ? "in" : "out"),
        "box=" + (box.scrollHeight > box.clientHeight ? "scrolls" : "fits"),
        "boxtop=" + Math.round(box.scrollTop),
        "row=" + (r.top >= h.bottom - 1 && r.bottom <= b.top + box.clientHeight + 1 ? "in" : "out"),
        "heads=" + Math.round(h.top - b.top)
      ].join(" "));
    }
  }
})();
