// Flame graph rendering: folded stacks and a self-contained HTML page.
#include "trace/flame.h"

#include <cstdio>
#include <string_view>

#include "util/text/escape.h"

namespace gpugate {

int FlameGraph::Child(int parent, const std::string& name) {
  for (int c : nodes[parent].children)
    if (nodes[c].name == name) return c;
  int id = static_cast<int>(nodes.size());
  nodes.push_back(Node{name, parent, 0, {}});
  nodes[parent].children.push_back(id);
  return id;
}

int64_t FlameGraph::Total(int node) const {
  // Children have larger indices than their parent: one backwards pass.
  std::vector<int64_t> total(nodes.size(), 0);
  for (size_t i = nodes.size(); i-- > 0;) {
    total[i] += nodes[i].self_ns;
    if (nodes[i].parent >= 0) total[nodes[i].parent] += total[i];
  }
  return total[node];
}

std::vector<std::string> FlameGraph::Path(int node) const {
  std::vector<std::string> path;
  for (int n = node; n > 0; n = nodes[n].parent) path.push_back(nodes[n].name);
  return std::vector<std::string>(path.rbegin(), path.rend());
}

namespace {

std::string FoldedFrame(const std::string& name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if (c == ';') out += ':';
    else if (c == '\n' || c == '\r' || c == '\t') out += ' ';
    else out += c;
  }
  return out;
}

void FoldedWalk(const FlameGraph& g, int node, std::string& prefix, std::string& out) {
  size_t keep = prefix.size();
  if (node > 0) {
    if (!prefix.empty()) prefix += ';';
    prefix += FoldedFrame(g.nodes[node].name);
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
#bar{margin:6px 0;display:flex;gap:8px;align-items:center}
#info{font-family:ui-monospace,Menlo,monospace;white-space:pre-wrap;word-break:break-all;min-height:3em;
 border:1px solid #ddd;padding:4px;background:#fafafa}
#chart{position:relative;width:100%;overflow:hidden;border:1px solid #ddd}
.f{position:absolute;height:17px;box-sizing:border-box;border:1px solid #fff;overflow:hidden;
 white-space:nowrap;text-overflow:ellipsis;padding:0 3px;cursor:pointer;font-size:11px;line-height:15px}
.f:hover{border-color:#333}
.m{outline:2px solid #c0f}
</style></head><body>
)";

constexpr const char* kHtmlScript = R"(
<div id="bar"><button id="reset">Reset zoom</button>
<input id="q" type="search" placeholder="Search frames" size="40">
<span id="found"></span></div>
<div id="info">Click a frame to zoom; hover for details. Widths: nanoseconds (CPU self time plus GPU time attributed through correlation ids).</div>
<div id="chart"></div>
<script>
(function(){
var N=DATA.nodes,n=N.length,tot=new Array(n),kids=new Array(n),depth=new Array(n),i;
for(i=0;i<n;i++){tot[i]=N[i][2];kids[i]=[];}
for(i=n-1;i>0;i--){tot[N[i][1]]+=tot[i];}
for(i=1;i<n;i++){kids[N[i][1]].push(i);}
depth[0]=0;for(i=1;i<n;i++){depth[i]=depth[N[i][1]]+1;}
var chart=document.getElementById('chart'),info=document.getElementById('info');
var root=0,query='',H=18;
function fmt(ns){if(ns>=1e9)return (ns/1e9).toFixed(3)+' s';if(ns>=1e6)return (ns/1e6).toFixed(3)+' ms';
 if(ns>=1e3)return (ns/1e3).toFixed(3)+' us';return ns+' ns';}
function color(name){var h=0;for(var k=0;k<name.length&&k<40;k++)h=(h*31+name.charCodeAt(k))>>>0;
 if(name.indexOf('[gpu] ')===0)return 'hsl('+(120+h%60)+',55%,62%)';
 return 'hsl('+(h%50)+','+(60+h%30)+'%,'+(58+h%14)+'%)';}
function path(id){var p=[];while(id>0){p.push(N[id][0]);id=N[id][1];}return p.reverse().join(' \u2192 ');}
function draw(){
 while(chart.firstChild)chart.removeChild(chart.firstChild);
 var W=chart.clientWidth||1000,base=depth[root],maxd=0,shown=0,matched=0;
 var anc=N[root][1];var ad=0;
 var stack=[[root,0,W]];
 while(stack.length){var e=stack.pop(),id=e[0],x=e[1],w=e[2];
  if(w<0.5)continue;var d=depth[id]-base;if(d>maxd)maxd=d;
  var el=document.createElement('div');el.className='f';
  el.style.left=x+'px';el.style.width=w+'px';el.style.top=(d*H)+'px';
  el.style.background=color(N[id][0]);el.textContent=N[id][0];
  if(query&&N[id][0].toLowerCase().indexOf(query)>=0){el.className+=' m';matched++;}
  el.title=N[id][0]+'\n'+fmt(tot[id])+' ('+(tot[root]?(100*tot[id]/tot[root]).toFixed(2):'0')+'% of view)';
  (function(id){el.onclick=function(){root=id;draw();};
   el.onmouseover=function(){info.textContent=path(id)+'\ntotal '+fmt(tot[id])+', self '+fmt(N[id][2]);};})(id);
  chart.appendChild(el);shown++;
  var cx=x,ks=kids[id];
  for(var k=0;k<ks.length;k++){var cw=tot[id]?w*tot[ks[k]]/tot[id]:0;stack.push([ks[k],cx,cw]);cx+=cw;}
 }
 chart.style.height=((maxd+1)*H+2)+'px';
 document.getElementById('found').textContent=query?(matched+' matching frames shown'):'';
}
document.getElementById('reset').onclick=function(){root=0;draw();};
document.getElementById('q').oninput=function(){query=this.value.toLowerCase();draw();};
window.onresize=draw;draw();
})();
</script>
</body></html>
)";

}  // namespace

std::string RenderFolded(const FlameGraph& graph) {
  std::string out, prefix;
  FoldedWalk(graph, 0, prefix, out);
  return out;
}

std::string RenderFlameHtml(const FlameGraph& graph, const std::string& title) {
  std::string out = kHtmlHead;
  out += HtmlEscape(title);
  out += kHtmlStyle;
  out += "<h1>" + HtmlEscape(title) + "</h1>\n<script>var DATA={\"nodes\":[";
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (i) out += ',';
    out += '[';
    AppendJsString(out, graph.nodes[i].name);
    out += ',' + std::to_string(graph.nodes[i].parent) + ',' + std::to_string(graph.nodes[i].self_ns) + ']';
  }
  out += "]};</script>";
  out += kHtmlScript;
  return out;
}

}  // namespace gpugate
