// socialbench study pages on Potato (custom_footer_html): the question and the answer forms in a side panel that
// stays in view, expand / collapse all branches, and post ids in the question jump to the post (opening the branches
// above it). Potato's sanitizer keeps no ids or buttons in item HTML,
// so posts carry their short id as a class (sb-c12) and this script adds the buttons.
(function () {
  function post(short) { return document.querySelector("details.sb-post.sb-" + short); }
  function setAll(open) {
    document.querySelectorAll("details.sb-post").forEach(function (d) { d.open = open; });
  }
  function reveal(short) {
    var target = post(short);
    if (!target) { return false; }
    for (var d = target; d; d = d.parentElement ? d.parentElement.closest("details") : null) { d.open = true; }
    target.scrollIntoView({ block: "start", behavior: "instant" });  // Potato's page scrolls smoothly: a jump over a long thread
    target.classList.add("sb-flash");
    setTimeout(function () { target.classList.remove("sb-flash"); }, 2000);
    return true;
  }
  function belowBar(panel) {
    // Potato's navigation bar stays at the top of the window: the panel sticks just below it
    var bar = document.elementFromPoint(Math.floor(window.innerWidth / 2), 2);
    while (bar && bar !== document.body && !/fixed|sticky/.test(getComputedStyle(bar).position)) { bar = bar.parentElement; }
    var top = bar && bar !== document.body ? Math.max(0, bar.getBoundingClientRect().bottom) : 0;
    // and ends above the Previous / Next bar, which sticks to the bottom of the window (study.css): a panel as tall
    // as the window went under it, and at the end of a short text was pushed up under the navigation bar
    var nav = document.querySelector(".potato-nav");
    var bottom = nav ? nav.getBoundingClientRect().height : 0;
    panel.style.top = top + "px";
    panel.style.maxHeight = "calc(100vh - " + (top + bottom + 16) + "px)";
  }
  function sidePanel() {
    // the question and the answer forms side by side with the thread, in one panel that stays in view
    var panel = document.querySelector(".sb-question");
    var forms = document.getElementById("annotation-forms");
    var main = document.getElementById("main-content");
    if (!panel || !forms || !main || forms.parentElement !== main) { return panel; }
    var side = document.createElement("div");
    side.className = "sb-side";
    main.insertBefore(side, forms);
    side.appendChild(panel);
    side.appendChild(forms);
    document.body.classList.add("sb-layout");
    return side;
  }
  function ratingsDiffer() {
    // a page marked sb-distinct-ratings (PerSo behavioral) asks for two different ratings: equal ones choose nothing
    if (!document.querySelector(".sb-distinct-ratings")) { return true; }
    var a = document.querySelector('input[schema="rating_1"]:checked');
    var b = document.querySelector('input[schema="rating_2"]:checked');
    return !(a && b && a.value === b.value);
  }
  function equalNote(show) {
    var note = document.getElementById("sb-equal-ratings");
    var forms = document.getElementById("annotation-forms");
    if (!note && show && forms) {
      note = document.createElement("p");
      note.id = "sb-equal-ratings";
      note.className = "sb-warning";
      note.textContent = "The two ratings must differ: rate the response more likely to change the OP's view higher.";
      forms.insertBefore(note, forms.firstChild);
    }
    if (note) { note.style.display = show ? "" : "none"; }
  }
  function guardEqualRatings() {
    // Potato validates before Next and saves each click in the background: equal ratings are neither let through
    // nor saved (what was saved before stays until the annotator picks two different ratings)
    var validate = window.validateRequiredFields;
    var save = window.saveAnnotations;
    if (typeof validate !== "function" || validate.sbGuarded) { return; }
    var guarded = function (options) {
      var filled = validate(options);
      var differ = ratingsDiffer();
      equalNote(!differ);
      return filled && differ;
    };
    guarded.sbGuarded = true;
    window.validateRequiredFields = guarded;
    if (typeof save === "function") {
      window.saveAnnotations = function (options) {
        if (!ratingsDiffer()) { equalNote(true); return Promise.resolve(!(options && options.background) ? false : true); }
        equalNote(false);
        return save(options);
      };
    }
  }
  function setup() {
    guardEqualRatings();
    var sticky = sidePanel();
    if (sticky) { belowBar(sticky); }
    document.querySelectorAll(".sb-tools").forEach(function (tools) {
      if (tools.dataset.ready) { return; }
      tools.dataset.ready = "1";
      [["Expand all", true], ["Collapse all", false]].forEach(function (spec) {
        var b = document.createElement("button");
        b.type = "button";
        b.textContent = spec[0];
        b.className = spec[1] ? "sb-expand-all" : "sb-collapse-all";
        b.addEventListener("click", function () { setAll(spec[1]); });
        tools.appendChild(b);
      });
    });
    document.querySelectorAll('.sb-question a[href^="#c"]').forEach(function (a) {
      a.addEventListener("click", function (event) {
        if (reveal(a.getAttribute("href").slice(1))) { event.preventDefault(); }
      });
    });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", setup); } else { setup(); }
})();
