// Flame graph of a trace: CPU X events nested per thread by time containment,
// with GPU time attributed through correlation ids (a GPU activity becomes a
// "[gpu] <name>" frame under the CPU stack whose runtime call launched it).
// Frames whose names differ only in a trailing "#<digits>" (ProfilerStep#12)
// are one frame ("ProfilerStep#*"). Three views of one graph: all (CPU self
// time plus GPU time), CPU only, GPU only. Rendered as folded stacks
// (flamegraph.pl / speedscope input, counts in nanoseconds) or as one
// self-contained interactive HTML file carrying all three views.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gpugate {

/// A call tree. nodes[0] is the root ("all"); every other node has a parent
/// with a smaller index. self_ns is time spent in the frame itself (CPU self
/// time, or GPU time for GPU frames, which have `gpu` set).
struct FlameGraph {
  struct Node {
    std::string name;
    int parent = -1;
    int64_t self_ns = 0;
    std::vector<int> children;
    bool gpu = false;  ///< a "[gpu] ..." frame: GPU time, not CPU time
  };
  std::vector<Node> nodes;

  FlameGraph() { nodes.push_back(Node{"all", -1, 0, {}, false}); }
  /// Child of `parent` named `name` (and of the same kind), created when missing.
  int Child(int parent, const std::string& name, bool gpu = false);
  /// A new child of `parent`, never merged with an existing one.
  int AddChild(int parent, const std::string& name, bool gpu, int64_t self_ns);
  /// self_ns of a node plus all its descendants.
  int64_t Total(int node) const;
  /// Total() of every node at once.
  std::vector<int64_t> Totals() const;
  /// The frame names from the root's child down to `node`.
  std::vector<std::string> Path(int node) const;

 private:
  std::unordered_map<std::string, int> index_;  ///< parent, kind and name -> child
};

/// The frame name used in the graph: a trailing "#<digits>" becomes "#*"
/// ("ProfilerStep#12" -> "ProfilerStep#*"), so frames that differ only in a
/// step or iteration number merge and their children are summed.
std::string MergedFrameName(std::string_view name);

enum class FlameView {
  kAll,  ///< CPU self time and GPU time
  kCpu,  ///< CPU frames only (GPU frames dropped)
  kGpu,  ///< GPU time only: GPU frames under the CPU stacks that launched them, CPU self time dropped
};
/// "all", "cpu", "gpu".
const char* FlameViewName(FlameView view);

/// One view of a graph. The CPU and GPU views drop frames with no time left
/// in them (a CPU stack that launched nothing is not in the GPU view).
FlameGraph SelectView(const FlameGraph& graph, FlameView view);

/// Frames whose total is below `min_share` of the root's total fold, with
/// everything under them, into one "[other]" frame per parent (its self time
/// is their summed time, so every total above stays exact). `folded` counts
/// the frames folded away. At most 1 / min_share frames per depth are kept.
FlameGraph FoldSmallFrames(const FlameGraph& graph, double min_share, int64_t* folded);

/// Folded stacks, one line per stack with self time: "thread;a;b;c 1234\n",
/// counts in nanoseconds, stacks in depth-first order. Frame names have ';'
/// and newlines replaced (they separate frames and lines in this format), and
/// other controls escaped as on a terminal (`\x1b`; backslashes doubled).
/// Every frame is written (no folding).
std::string RenderFolded(const FlameGraph& graph);

struct FlameHtmlOptions {
  /// Frames below this share of a view's total fold into "[other]" (0: none).
  double min_share = 1e-4;
};

/// A self-contained HTML page (inline CSS/JS, no network): an icicle/flame
/// chart of the three views with a switch between them, click-to-zoom, hover
/// details and a search that counts matching frames and the share of the time
/// they cover. All names are HTML/JS-escaped and inserted as text. `title` is
/// escaped too.
std::string RenderFlameHtml(const FlameGraph& graph, const std::string& title, const FlameHtmlOptions& options = {});

}  // namespace gpugate
