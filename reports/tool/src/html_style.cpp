// The look and the small behaviour of the HTML report, and its litmus charts.
// Kept out of html_report.cpp so the page structure reads on its own.
#include <algorithm>
#include <sstream>
#include <vector>

#include "renderers.h"
#include "text.h"

namespace hcts::report {

std::string_view html_css() {
  return R"CSS(
:root{--fg:#1f2328;--muted:#656d76;--line:#d0d7de;--bg:#fff;--soft:#f6f8fa;
--pass:#1a7f37;--profile:#0969da;--waived:#8250df;--ns:#6e7781;--hazard:#9a6700;--xpass:#bc4c00;--fail:#cf222e;--timeout:#a40e26;--crash:#6e011a;}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);background:var(--soft)}
code,pre{font:12.5px/1.4 ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace}
code{background:#eff1f3;border-radius:4px;padding:1px 4px;overflow-wrap:anywhere}
header.top{display:flex;justify-content:space-between;align-items:center;gap:24px;padding:20px 32px;background:#24292f;color:#fff}
.brand{font-size:22px;font-weight:650;letter-spacing:.2px}
.sub{color:#c9d1d9;margin-top:4px}.sub code{background:#32383f;color:#e6edf3}
.overall{font-size:28px;font-weight:800;padding:10px 26px;border-radius:10px;color:#fff;letter-spacing:1px}
.lead{margin:16px 32px 0;font-size:16px}
nav.toc{display:flex;flex-wrap:wrap;gap:8px;padding:12px 32px;background:#fff;border-bottom:1px solid var(--line);position:sticky;top:0;z-index:2}
nav.toc a{color:var(--fg);text-decoration:none;padding:4px 10px;border:1px solid var(--line);border-radius:16px;background:var(--soft)}
main{padding:8px 32px 24px;max-width:1500px}
section{background:#fff;border:1px solid var(--line);border-radius:10px;padding:4px 22px 18px;margin:18px 0;overflow-x:auto}
h2{font-size:20px;margin:16px 0 10px;display:flex;align-items:center;gap:10px}
h3{font-size:16px;margin:22px 0 8px}
details.section>summary{cursor:pointer}details.section>summary h3{display:inline-block;margin:22px 0 8px}
.muted{color:var(--muted)}.small{font-size:12px}
.badge{display:inline-block;min-width:64px;text-align:center;padding:1px 8px;border-radius:12px;font-size:11.5px;font-weight:700;color:#fff;letter-spacing:.3px;white-space:nowrap}
.v-PASS{background:var(--pass)}.v-PROFILE{background:var(--profile)}.v-WAIVED{background:var(--waived)}
.v-NOT_SUPPORTED{background:var(--ns)}.v-HAZARD{background:var(--hazard)}.v-XPASS{background:var(--xpass)}
.v-FAIL{background:var(--fail)}.v-TIMEOUT{background:var(--timeout)}.v-CRASH{background:var(--crash)}
.v-NOT_RUN{background:#fff;color:var(--muted);border:1px dashed var(--muted)}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:6px 0 12px}
.card{border:1px solid var(--line);border-radius:8px;padding:10px 16px;min-width:150px;background:var(--soft);color:var(--muted)}
.card .big{font-size:26px;font-weight:700;color:var(--fg)}.card .small-big{font-size:20px;padding:4px 0}
.chips{display:flex;flex-wrap:wrap;gap:6px;margin:4px 0 8px}
.chip{color:#fff;border-radius:14px;padding:3px 12px;font-size:12.5px}
.alert{border-left:4px solid var(--fail);background:#ffebe9;padding:8px 12px;border-radius:4px}
.controls{display:flex;gap:8px;align-items:center;margin:6px 0}
.controls input{flex:0 1 320px;padding:5px 8px;border:1px solid var(--line);border-radius:6px;font:inherit}
.controls select{padding:5px 8px;border:1px solid var(--line);border-radius:6px;font:inherit;background:#fff}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;vertical-align:top;padding:6px 8px;border-bottom:1px solid var(--line)}
thead th{background:var(--soft);font-weight:600;position:relative;white-space:nowrap}
table.sortable>thead th{cursor:pointer;user-select:none}
table.sortable>thead th::after{content:" \2195";color:#afb8c1;font-size:11px}
table.sortable>thead th[aria-sort=ascending]::after{content:" \25B2";color:var(--fg)}
table.sortable>thead th[aria-sort=descending]::after{content:" \25BC";color:var(--fg)}
td.num,th.num{text-align:right;white-space:nowrap}
tr.clause-row>td:first-child,tr.clause-row>td:nth-child(3){white-space:nowrap}
table.cases td:first-child{min-width:120px;max-width:260px}table.cases td:last-child{width:60%}
tr.clause-row:hover,tr.compare-row:hover{background:#f6f8fa}
tr.clause-row[data-verdict=FAIL],tr.clause-row[data-verdict=CRASH],tr.clause-row[data-verdict=TIMEOUT],tr.clause-row[data-verdict=XPASS]{background:#fff5f5}
tr.clause-row[data-verdict=HAZARD]{background:#fff8e5}
details.evidence>summary{cursor:pointer;font-weight:500}
details.evidence[open]>summary{margin-bottom:6px}
.statement{margin:4px 0;font-style:italic}
.reason{color:var(--fail);font-weight:500}
.waiver{color:var(--waived);margin:4px 0}
table.cases{margin:6px 0 4px;font-size:13px;background:#fff}
table.cases th{background:#fafbfc}
ul.messages{margin:4px 0;padding-left:18px}ul.messages li{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12.5px}
.rank{color:var(--muted)}
.repro{margin-top:3px}
details.obs pre{background:var(--soft);padding:6px;border-radius:4px;max-height:200px;overflow:auto}
table.matrix td,table.matrix th{text-align:center}table.matrix td:first-child,table.matrix th:first-child,table.matrix td.title,table.matrix th:nth-child(2){text-align:left}table.matrix td.title{color:var(--muted);font-size:13px}
table.matrix a{text-decoration:none}
.litmus-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(410px,1fr));gap:12px}
figure.litmus{margin:0;border:1px solid var(--line);border-radius:8px;padding:10px 12px;background:#fff}
figure.litmus[data-verdict=FAIL]{border-color:var(--fail)}
svg.hist{display:block;margin-top:6px}
ol.steps{margin:0;padding-left:20px}
.env{display:grid;grid-template-columns:repeat(auto-fit,minmax(320px,1fr));gap:14px}
table.kv caption{text-align:left;font-weight:600;padding:4px 0}
table.kv th{width:34%;background:none;color:var(--muted);font-weight:500;white-space:normal}
footer{padding:8px 32px 32px;color:var(--muted);font-size:12px;max-width:1500px}
@media print{nav.toc{position:static}details{open:true}}
)CSS";
}

std::string_view html_script() {
  return R"JS(
(function(){
  'use strict';
  function key(cell){
    if(!cell) return '';
    return cell.dataset.sortKey !== undefined ? cell.dataset.sortKey : cell.textContent.trim();
  }
  function compare(a,b){
    var x=parseFloat(a), y=parseFloat(b);
    if(!isNaN(x) && !isNaN(y) && /^-?[0-9.e+-]+$/.test(a) && /^-?[0-9.e+-]+$/.test(b)) return x-y;
    return a.localeCompare(b, undefined, {numeric:true});
  }
  function sortTable(table, col, th){
    var dir = th.getAttribute('aria-sort') === 'ascending' ? -1 : 1;
    table.tHead.querySelectorAll('th').forEach(function(h){ h.removeAttribute('aria-sort'); });
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function(a,b){ return dir*compare(key(a.cells[col]), key(b.cells[col])); });
    rows.forEach(function(r){ body.appendChild(r); });
    th.setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending');
  }
  document.querySelectorAll('table.sortable').forEach(function(table){
    if(!table.tHead) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function(th, col){
      th.tabIndex = 0;
      th.addEventListener('click', function(){ sortTable(table, col, th); });
      th.addEventListener('keydown', function(e){ if(e.key === 'Enter') sortTable(table, col, th); });
    });
  });
  var controls = [];
  document.querySelectorAll('.controls').forEach(function(box){
    var table = document.getElementById(box.dataset.table);
    if(!table) return;
    var input = box.querySelector('input'), select = box.querySelector('select'), shown = box.querySelector('.shown');
    function apply(){
      var text = input.value.trim().toLowerCase(), verdict = select.value, n = 0, all = 0;
      Array.prototype.forEach.call(table.tBodies[0].rows, function(row){
        var ok = (!verdict || row.dataset.verdict === verdict) &&
                 (!text || row.textContent.toLowerCase().indexOf(text) >= 0);
        row.hidden = !ok; all++; if(ok) n++;
      });
      shown.textContent = n === all ? all + ' shown' : n + ' of ' + all + ' shown';
    }
    input.addEventListener('input', apply);
    select.addEventListener('change', apply);
    controls.push({input:input, select:select, apply:apply});
    apply();
  });
  // A link can carry a filter: report.html#verdict=FAIL or #q=Bounds (both may be combined with &).
  function fromHash(){
    var params = new URLSearchParams(location.hash.replace(/^#/, ''));
    if(!params.has('verdict') && !params.has('q')) return;
    controls.forEach(function(c){
      if(params.has('verdict')){
        var v = params.get('verdict');
        var known = Array.prototype.some.call(c.select.options, function(o){ return o.value === v; });
        if(!known){ var opt = document.createElement('option'); opt.textContent = v; c.select.appendChild(opt); }
        c.select.value = v;
      }
      if(params.has('q')) c.input.value = params.get('q');
      c.apply();
    });
  }
  window.addEventListener('hashchange', fromHash);
  fromHash();
  document.body.dataset.ready = '1';
})();
)JS";
}

std::string litmus_svg(const nlohmann::json &litmus) {
  const auto &outcomes = object_at(litmus, "outcomes");
  const auto &forbidden_list = array_at(litmus, "forbidden");
  auto forbidden = [&](const std::string &name) {
    return std::any_of(forbidden_list.begin(), forbidden_list.end(),
                       [&](const nlohmann::json &f) { return f.is_string() && f.get<std::string>() == name; });
  };
  // Allowed outcomes first, then the forbidden ones in the order the test lists them.
  std::vector<std::string> order;
  for (const auto &[name, count] : outcomes.items())
    if (!forbidden(name)) order.push_back(name);
  for (const auto &f : forbidden_list)
    if (f.is_string()) order.push_back(f.get<std::string>());
  double total = 0, max_count = 0;
  for (const auto &[name, count] : outcomes.items()) {
    if (!count.is_number()) continue;
    total += count.get<double>();
    max_count = std::max(max_count, count.get<double>());
  }
  const int label_w = 92, bar_w = 180, row_h = 22, width = label_w + bar_w + 104;
  const int height = std::max<int>(1, static_cast<int>(order.size())) * row_h + 4;
  std::ostringstream o;
  o << "<svg class=\"hist\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << ' ' << height << "\" role=\"img\" aria-label=\"outcome histogram of "
    << html_escape(field(litmus, "id")) << "\"><title>" << html_escape(field(litmus, "id")) << " outcomes</title>";
  int y = 2;
  for (const auto &name : order) {
    const auto it = outcomes.find(name);
    const double count = it != outcomes.end() && it->is_number() ? it->get<double>() : 0;
    const bool bad = forbidden(name);
    // Rare outcomes matter most here: a nonzero count is never drawn thinner than 3px.
    double w = max_count > 0 ? bar_w * count / max_count : 0;
    if (count > 0) w = std::max(w, 3.0);
    const char *fill = bad ? (count > 0 ? "#cf222e" : "#ffd8d3") : "#2da44e";
    o << "<text x=\"" << label_w - 6 << "\" y=\"" << y + 15 << "\" text-anchor=\"end\" font-size=\"12\" fill=\""
      << (bad ? "#cf222e" : "#1f2328") << "\">" << html_escape(name) << (bad ? " ✗" : "") << "</text>"
      << "<rect x=\"" << label_w << "\" y=\"" << y + 3 << "\" width=\"" << bar_w << "\" height=\"" << row_h - 6
      << "\" fill=\"#f6f8fa\" stroke=\"#d0d7de\"/>"
      << "<rect class=\"bar\" data-outcome=\"" << html_escape(name) << "\" x=\"" << label_w << "\" y=\"" << y + 3
      << "\" width=\"" << format_fixed(w, 1) << "\" height=\"" << row_h - 6 << "\" fill=\"" << fill << "\"/>"
      << "<text x=\"" << label_w + bar_w + 6 << "\" y=\"" << y + 15 << "\" font-size=\"12\" fill=\"#1f2328\">"
      << format_fixed(count, 0) << (total > 0 ? " (" + format_fixed(100.0 * count / total, 1) + "%)" : std::string())
      << "</text>";
    y += row_h;
  }
  if (order.empty())
    o << "<text x=\"4\" y=\"16\" font-size=\"12\" fill=\"#656d76\">no outcomes recorded</text>";
  o << "</svg>";
  return o.str();
}

}  // namespace hcts::report
