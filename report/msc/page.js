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
  }

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
    var row = sec.querySelector("svg .row.cur");
    var box = sec.querySelector(".svgbox");
    if (row && box && row.scrollIntoView && box.scrollHeight > box.clientHeight) {
      row.scrollIntoView({ block: "nearest" });
    }
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
  }
})();
