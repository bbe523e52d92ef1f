// The small behaviour of report.html (hcts-report): sortable tables, filters,
// a filter and an order from the URL (#verdict=FAIL, #q=..., #sort=...&dir=desc).
// Embedded at build time (cmake/HctsEmbed.cmake); the page allows no fetch.
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
  function sortTable(table, col, th, forced){
    var dir = forced || (th.getAttribute('aria-sort') === 'ascending' ? -1 : 1);
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
  // A link can carry a filter and an order: report.html#verdict=FAIL, #q=Bounds,
  // #sort=Verdict&dir=desc (sorts every table with such a column), combined with &.
  function fromHash(){
    var params = new URLSearchParams(location.hash.replace(/^#/, ''));
    if(params.has('sort')){
      var name = params.get('sort').toLowerCase(), dir = params.get('dir') === 'desc' ? -1 : 1;
      document.querySelectorAll('table.sortable').forEach(function(table){
        if(!table.tHead) return;
        Array.prototype.forEach.call(table.tHead.rows[0].cells, function(th, col){
          if(th.textContent.trim().toLowerCase() === name) sortTable(table, col, th, dir);
        });
      });
    }
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
