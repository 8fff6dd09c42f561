// Flame graph of a trace: CPU X events nested per thread by time containment,
// with GPU time attributed through correlation ids (a GPU activity becomes a
// "[gpu] <name>" frame under the CPU stack whose runtime call launched it).
// Rendered as folded stacks (flamegraph.pl / speedscope input, counts in
// nanoseconds) or as one self-contained interactive HTML file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpugate {

/// A call tree. nodes[0] is the root ("all"); every other node has a parent
/// with a smaller index. self_ns is time spent in the frame itself (CPU self
/// time, or GPU time for "[gpu] ..." frames).
struct FlameGraph {
  struct Node {
    std::string name;
    int parent = -1;
    int64_t self_ns = 0;
    std::vector<int> children;
  };
  std::vector<Node> nodes;

  FlameGraph() { nodes.push_back(Node{"all", -1, 0, {}}); }
  /// Child of `parent` named `name`, created when missing.
  int Child(int parent, const std::string& name);
  /// self_ns of a node plus all its descendants.
  int64_t Total(int node) const;
  /// The frame names from the root's child down to `node`.
  std::vector<std::string> Path(int node) const;
};

/// Folded stacks, one line per stack with self time: "thread;a;b;c 1234\n",
/// counts in nanoseconds, stacks in depth-first order. Frame names have ';'
/// and newlines replaced (they separate frames and lines in this format).
std::string RenderFolded(const FlameGraph& graph);

/// A self-contained HTML page (inline CSS/JS, no network): an icicle/flame
/// chart with click-to-zoom, hover details and a search box. All names are
/// HTML/JS-escaped. `title` is escaped too.
std::string RenderFlameHtml(const FlameGraph& graph, const std::string& title);

}  // namespace gpugate
