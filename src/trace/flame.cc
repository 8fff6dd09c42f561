// Flame graph views, folding of small frames, folded stacks and the
// self-contained HTML page.
#include "trace/flame.h"

#include <cstdio>
#include <string_view>

#include "util/text/escape.h"

namespace gpugate {

namespace {

std::string IndexKey(int parent, const std::string& name, bool gpu) {
  std::string key(reinterpret_cast<const char*>(&parent), sizeof parent);
  key += gpu ? 'g' : 'c';
  key += name;
  return key;
}

}  // namespace

int FlameGraph::Child(int parent, const std::string& name, bool gpu) {
  auto [it, fresh] = index_.try_emplace(IndexKey(parent, name, gpu), static_cast<int>(nodes.size()));
  if (!fresh) return it->second;
  nodes.push_back(Node{name, parent, 0, {}, gpu});
  nodes[parent].children.push_back(it->second);
  return it->second;
}

int FlameGraph::AddChild(int parent, const std::string& name, bool gpu, int64_t self_ns) {
  int id = static_cast<int>(nodes.size());
  nodes.push_back(Node{name, parent, self_ns, {}, gpu});
  nodes[parent].children.push_back(id);
  index_.try_emplace(IndexKey(parent, name, gpu), id);
  return id;
}

std::vector<int64_t> FlameGraph::Totals() const {
  // Children have larger indices than their parent: one backwards pass.
  std::vector<int64_t> total(nodes.size(), 0);
  for (size_t i = nodes.size(); i-- > 0;) {
    total[i] += nodes[i].self_ns;
    if (nodes[i].parent >= 0) total[nodes[i].parent] += total[i];
  }
  return total;
}

int64_t FlameGraph::Total(int node) const { return Totals()[node]; }

std::vector<std::string> FlameGraph::Path(int node) const {
  std::vector<std::string> path;
  for (int n = node; n > 0; n = nodes[n].parent) path.push_back(nodes[n].name);
  return std::vector<std::string>(path.rbegin(), path.rend());
}

std::string MergedFrameName(std::string_view name) {
  size_t digits = 0;
  while (digits < name.size() && name[name.size() - 1 - digits] >= '0' && name[name.size() - 1 - digits] <= '9')
    ++digits;
  if (digits == 0 || digits == name.size() || name[name.size() - 1 - digits] != '#') return std::string(name);
  std::string out(name.substr(0, name.size() - digits));
  out += '*';
  return out;
}

const char* FlameViewName(FlameView view) {
  switch (view) {
    case FlameView::kCpu: return "cpu";
    case FlameView::kGpu: return "gpu";
    case FlameView::kAll: break;
  }
  return "all";
}

FlameGraph SelectView(const FlameGraph& graph, FlameView view) {
  const size_t n = graph.nodes.size();
  // Time of each node in this view, then of its subtree.
  std::vector<int64_t> total(n, 0);
  for (size_t i = n; i-- > 0;) {
    const FlameGraph::Node& node = graph.nodes[i];
    bool counts = view == FlameView::kAll || (view == FlameView::kGpu) == node.gpu;
    total[i] += counts ? node.self_ns : 0;
    if (node.parent >= 0) total[node.parent] += total[i];
  }
  FlameGraph out;
  std::vector<int> map(n, -1);
  map[0] = 0;
  for (size_t i = 1; i < n; ++i) {
    const FlameGraph::Node& node = graph.nodes[i];
    int parent = map[node.parent];
    if (parent < 0) continue;
    if (view == FlameView::kCpu && node.gpu) continue;
    if (view != FlameView::kAll && total[i] == 0) continue;
    bool counts = view == FlameView::kAll || (view == FlameView::kGpu) == node.gpu;
    map[i] = out.AddChild(parent, node.name, node.gpu, counts ? node.self_ns : 0);
  }
  out.nodes[0].self_ns = view == FlameView::kGpu ? 0 : graph.nodes[0].self_ns;
  return out;
}

FlameGraph FoldSmallFrames(const FlameGraph& graph, double min_share, int64_t* folded) {
  const size_t n = graph.nodes.size();
  std::vector<int64_t> total = graph.Totals();
  const double threshold = min_share * static_cast<double>(total[0]);
  int64_t count = 0;
  FlameGraph out;
  out.nodes[0].self_ns = graph.nodes[0].self_ns;
  std::vector<int> map(n, -1);
  std::vector<int> other(n, -1);  // per original parent: its "[other]" frame in `out`
  map[0] = 0;
  for (size_t i = 1; i < n; ++i) {
    const FlameGraph::Node& node = graph.nodes[i];
    int parent = map[node.parent];
    if (parent < 0) {  // under a folded frame: its time is already in an [other]
      ++count;
      continue;
    }
    if (static_cast<double>(total[i]) < threshold) {
      ++count;
      int& o = other[node.parent];
      if (o < 0) o = out.AddChild(parent, "[other]", false, 0);
      out.nodes[o].self_ns += total[i];
      continue;
    }
    map[i] = out.AddChild(parent, node.name, node.gpu, node.self_ns);
  }
  if (folded) *folded = count;
  return out;
}

namespace {

// A frame of a folded line: ';' separates frames and whitespace controls
// would split lines, and the lines reach terminals and CI logs (`--flame -`),
// so other controls, bidi marks and invalid bytes are escaped as everywhere
// on a terminal (EscapeTerminal). Only the line's first frame can start a
// line, so only there does a leading "::" get escaped (C++ frames such as
// "::operator new" keep their name elsewhere).
std::string FoldedFrame(const std::string& name, bool first) {
  std::string plain;
  plain.reserve(name.size());
  for (char c : name) {
    if (c == ';') plain += ':';
    else if (c == '\n' || c == '\r' || c == '\t') plain += ' ';
    else plain += c;
  }
  return first ? EscapeTerminal(plain) : EscapeTerminalInline(plain);
}

void FoldedWalk(const FlameGraph& g, int node, std::string& prefix, std::string& out) {
  size_t keep = prefix.size();
  if (node > 0) {
    const bool first = prefix.empty();
    if (!first) prefix += ';';
    prefix += FoldedFrame(g.nodes[node].name, first);
    if (g.nodes[node].self_ns > 0) {
      out += prefix;
      out += ' ';
      out += std::to_string(g.nodes[node].self_ns);
      out += '\n';
    }
  }
  for (int c : g.nodes[node].children) FoldedWalk(g, c, prefix, out);
  prefix.resize(keep);
}

/// JSON string literal safe inside an HTML <script> element.
void AppendJsString(std::string& out, std::string_view s) { out += JsonStringLiteral(s, /*for_script=*/true); }

std::string HtmlEscape(std::string_view s) { return EscapeHtml(s); }

constexpr const char* kHtmlHead = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>)";

constexpr const char* kHtmlStyle = R"(</title>
<style>
body{font:12px/1.4 system-ui,-apple-system,Segoe UI,sans-serif;margin:12px;background:#fff;color:#222}
h1{font-size:16px;margin:0 0 6px}
#bar{margin:6px 0;display:flex;gap:8px;align-items:center;flex-wrap:wrap}
#info{font-family:ui-monospace,Menlo,monospace;white-space:pre-wrap;word-break:break-all;min-height:3em;
 border:1px solid #ddd;padding:4px;background:#fafafa}
#note{color:#555;margin:4px 0}
#chart{position:relative;width:100%;overflow:hidden;border:1px solid #ddd}
.f{position:absolute;height:17px;box-sizing:border-box;border:1px solid #fff;overflow:hidden;
 white-space:nowrap;text-overflow:ellipsis;padding:0 3px;cursor:pointer;font-size:11px;line-height:15px}
.f:hover{border-color:#333}
.m{outline:2px solid #c0f}
</style></head><body>
)";

constexpr const char* kHtmlScript = R"(
<div id="bar"><span>View:</span>
<label><input type="radio" name="view" value="0" checked> all (CPU + GPU)</label>
<label><input type="radio" name="view" value="1"> CPU only</label>
<label><input type="radio" name="view" value="2"> GPU only</label>
<button id="reset">Reset zoom</button>
<input id="q" type="search" placeholder="Search frames" size="40">
<span id="found"></span></div>
<div id="note"></div>
<div id="info">Click a frame to zoom; hover for details.</div>
<div id="chart"></div>
<script>
(function(){
var V=DATA.views,view=null,root=0,query='',hit=null,H=18;
var WIDTHS=['Widths: nanoseconds of CPU self time plus GPU time, which sits under the CPU stack that launched it.',
 'Widths: nanoseconds of CPU time only (GPU frames left out).',
 'Widths: nanoseconds of GPU time only, under the CPU stacks that launched it (CPU self time left out).'];
function prep(v){if(v.tot)return v;var N=v.nodes,n=N.length,i;v.tot=new Array(n);v.kids=new Array(n);v.depth=new Array(n);
 for(i=0;i<n;i++){v.tot[i]=N[i][2];v.kids[i]=[];}
 for(i=n-1;i>0;i--){v.tot[N[i][1]]+=v.tot[i];}
 for(i=1;i<n;i++){v.kids[N[i][1]].push(i);}
 v.depth[0]=0;for(i=1;i<n;i++){v.depth[i]=v.depth[N[i][1]]+1;}
 return v;}
var chart=document.getElementById('chart'),info=document.getElementById('info'),found=document.getElementById('found');
function fmt(ns){if(ns>=1e9)return (ns/1e9).toFixed(3)+' s';if(ns>=1e6)return (ns/1e6).toFixed(3)+' ms';
 if(ns>=1e3)return (ns/1e3).toFixed(3)+' us';return ns+' ns';}
function pct(part,whole){return whole?(100*part/whole).toFixed(1):'0.0';}
function color(id){var name=view.nodes[id][0],h=0;for(var k=0;k<name.length&&k<40;k++)h=(h*31+name.charCodeAt(k))>>>0;
 if(view.nodes[id][3])return 'hsl('+(120+h%60)+',55%,62%)';
 if(name==='[other]')return '#ccc';
 return 'hsl('+(h%50)+','+(60+h%30)+'%,'+(58+h%14)+'%)';}
function path(id){var p=[];while(id>0){p.push(view.nodes[id][0]);id=view.nodes[id][1];}return p.reverse().join(' \u2192 ');}
// Search over every frame of the view, drawn or not; the time share counts
// a match inside another match once.
function search(){
 hit=null;found.textContent='';if(!query)return;
 var N=view.nodes,n=N.length,cov=new Array(n),count=0,ns=0,i;hit=new Array(n);hit[0]=false;cov[0]=false;
 for(i=1;i<n;i++){hit[i]=N[i][0].toLowerCase().indexOf(query)>=0;var up=cov[N[i][1]];cov[i]=hit[i]||up;
  if(hit[i]){count++;if(!up)ns+=view.tot[i];}}
 found.textContent=count+(count===1?' frame matches, ':' frames match, ')+pct(ns,view.tot[0])+'% of the time';}
function draw(){
 while(chart.firstChild)chart.removeChild(chart.firstChild);
 var N=view.nodes,tot=view.tot,kids=view.kids,depth=view.depth;
 var W=chart.clientWidth||1000,base=depth[root],maxd=0;
 var stack=[[root,0,W]];
 while(stack.length){var e=stack.pop(),id=e[0],x=e[1],w=e[2];
  if(w<0.5)continue;var d=depth[id]-base;if(d>maxd)maxd=d;
  var el=document.createElement('div');el.className='f';
  el.style.left=x+'px';el.style.width=w+'px';el.style.top=(d*H)+'px';
  el.style.background=color(id);el.textContent=N[id][0];
  if(hit&&hit[id])el.className+=' m';
  el.title=N[id][0]+'\n'+fmt(tot[id])+' ('+(tot[root]?(100*tot[id]/tot[root]).toFixed(2):'0')+'% of view)';
  (function(id){el.onclick=function(){root=id;draw();};
   el.onmouseover=function(){info.textContent=path(id)+'\ntotal '+fmt(tot[id])+', self '+fmt(N[id][2]);};})(id);
  chart.appendChild(el);
  var cx=x,ks=kids[id];
  for(var k=0;k<ks.length;k++){var cw=tot[id]?w*tot[ks[k]]/tot[id]:0;stack.push([ks[k],cx,cw]);cx+=cw;}
 }
 chart.style.height=((maxd+1)*H+2)+'px';
}
function show(i){view=prep(V[i]);root=0;
 var note=WIDTHS[i]+' Frames whose names differ only in a trailing #number (ProfilerStep#12) are merged into one (ProfilerStep#*).';
 if(view.folded>0)note+=' '+view.folded+' frames below '+(100*view.min_share)+'% of this view\'s time are folded into [other] frames (not searchable).';
 document.getElementById('note').textContent=note;search();draw();}
var radios=document.getElementsByName('view');
for(var r=0;r<radios.length;r++)radios[r].onchange=function(){show(+this.value);};
document.getElementById('reset').onclick=function(){root=0;draw();};
document.getElementById('q').oninput=function(){query=this.value.toLowerCase();search();draw();};
window.onresize=draw;show(0);
})();
</script>
</body></html>
)";

void AppendView(std::string& out, const FlameGraph& graph, FlameView view, double min_share) {
  int64_t folded = 0;
  FlameGraph g = SelectView(graph, view);
  if (min_share > 0) g = FoldSmallFrames(g, min_share, &folded);
  char share[32];
  std::snprintf(share, sizeof share, "%.6g", min_share);
  out += "{\"name\":\"";
  out += FlameViewName(view);
  out += "\",\"folded\":" + std::to_string(folded) + ",\"min_share\":" + share + ",\"nodes\":[";
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (i) out += ',';
    out += '[';
    AppendJsString(out, g.nodes[i].name);
    out += ',' + std::to_string(g.nodes[i].parent) + ',' + std::to_string(g.nodes[i].self_ns) +
           (g.nodes[i].gpu ? ",1]" : ",0]");
  }
  out += "]}";
}

}  // namespace

std::string RenderFolded(const FlameGraph& graph) {
  std::string out, prefix;
  FoldedWalk(graph, 0, prefix, out);
  return out;
}

std::string RenderFlameHtml(const FlameGraph& graph, const std::string& title, const FlameHtmlOptions& options) {
  std::string out = kHtmlHead;
  out += HtmlEscape(title);
  out += kHtmlStyle;
  out += "<h1>" + HtmlEscape(title) + "</h1>\n<script>var DATA={\"views\":[";
  const FlameView views[] = {FlameView::kAll, FlameView::kCpu, FlameView::kGpu};
  for (size_t v = 0; v < 3; ++v) {
    if (v) out += ",\n";
    AppendView(out, graph, views[v], options.min_share);
  }
  out += "]};</script>";
  out += kHtmlScript;
  return out;
}

}  // namespace gpugate
