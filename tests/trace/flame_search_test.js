// Runs the flame graph page's script in Node with a minimal DOM stand-in and
// checks what its search reports: every matching frame of the view counted
// (drawn or not) and the share of the view's time they cover, nested matches
// counted once; and the view switch. Usage (ctest flame_search_js):
//   node flame_search_test.js PAGE.html
'use strict';
const fs = require('fs');
const html = fs.readFileSync(process.argv[2], 'utf8');
const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
if (scripts.length !== 2) throw new Error('expected 2 scripts, got ' + scripts.length);

function element(id) {
  return {id, children: [], style: {}, textContent: '', className: '', value: '', clientWidth: 1000,
    get firstChild() { return this.children[0] || null; },
    appendChild(c) { this.children.push(c); }, removeChild(c) { this.children.splice(this.children.indexOf(c), 1); }};
}
const ids = {};
const radios = [0, 1, 2].map((v) => Object.assign(element('view' + v), {value: String(v)}));
global.document = {
  getElementById: (id) => (ids[id] = ids[id] || element(id)),
  createElement: () => element(''),
  getElementsByName: () => radios,
};
global.window = {};
// The page declares DATA with var; run both scripts in one scope.
const run = new Function(scripts[0] + '\n' + scripts[1] + '\nreturn DATA;');
const DATA = run();

let failures = 0;
function expect(what, got, want) {
  if (got !== want) { console.error(`FAIL ${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`); failures++; }
}
// Reference: count and covered time straight from the view's nodes.
function reference(view, q) {
  const N = view.nodes, tot = N.map((n) => n[2]);
  for (let i = N.length - 1; i > 0; i--) tot[N[i][1]] += tot[i];
  let count = 0, ns = 0;
  for (let i = 1; i < N.length; i++) {
    if (!N[i][0].toLowerCase().includes(q)) continue;
    count++;
    let up = N[i][1], inside = false;
    for (; up > 0; up = N[up][1]) if (N[up][0].toLowerCase().includes(q)) inside = true;
    if (!inside) ns += tot[i];
  }
  return [count, (100 * ns / tot[0]).toFixed(1)];
}
function search(q) {
  ids.q.value = q;
  ids.q.oninput.call(ids.q);
  return ids.found.textContent;
}
const wanted = JSON.parse(process.argv[3] || '{}');
for (let v = 0; v < 3; v++) {
  radios[v].onchange.call(radios[v]);
  for (const q of ['[gpu]', 'cuda', 'outer', 'step', 'k1', 'no such frame']) {
    const [count, pct] = reference(DATA.views[v], q);
    const text = count + (count === 1 ? ' frame matches, ' : ' frames match, ') + pct + '% of the time';
    expect(`view ${v} search ${q}`, search(q), text);
    const key = DATA.views[v].name + ':' + q;
    if (key in wanted) expect(`hand-checked ${key}`, search(q), wanted[key]);
  }
  expect(`view ${v} drew frames`, ids.chart.children.length > 0, true);
}
if (failures) process.exit(1);
console.log('flame search: ok');
