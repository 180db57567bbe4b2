// Showing plans in dri-plan: ranges as text, and the SVG picture, its
// colours, and the blocks and pieces of a pair of sides in it.
#pragma once

#include "core/box_partition.hpp"
#include "core/box_plan.hpp"
#include "core/plan.hpp"

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace dri::plan_view {

using namespace dri::core;

// Ranges as text: "0:3,8:11" (at most `limit`, then how many more), and a
// box of them per dimension: "[0:3][0:7]".
std::string ranges_text(const std::vector<Range>& rs, std::size_t limit = 6);
std::string box_text(const std::vector<std::vector<Range>>& box);

// Owned (stored = false) or stored ranges of process p, per dimension.
std::vector<std::vector<Range>> block_ranges(const Distribution& d, int p, bool stored);

// The cells process p owns as products of ranges: one per box of a box
// distribution, one (block_ranges) for an ordinary distribution.
std::vector<RangeProduct> owned_products(const Distribution& d, int p);
// The cells sender s sends receiver r, as products of ranges.
std::vector<RangeProduct> pair_products(const Side& send, const Side& recv, int s, int r);
// Products as text, e.g. "[0:3][0:7] [4:5][0:2]".
std::string products_text(const std::vector<RangeProduct>& ps);
// The partition's notation, or the box partition's.
std::string partition_text(const Distribution& d);

// The colour of process p.
const char* colour(int p);

// Cells of the global array as one or more boxes of [first, last] ranges per
// dimension; 1-D data is drawn as one row.
using Box2 = std::pair<Range, Range>; // rows, columns
std::vector<Box2> boxes(const std::vector<std::vector<Range>>& per_dim);
std::vector<Box2> boxes_of_all(const std::vector<RangeProduct>& products);

class Svg {
  public:
    Svg(Index rows, Index cols) : rows_(rows), cols_(cols) {
        cell_ = std::min(panel / static_cast<double>(cols), panel / static_cast<double>(rows));
    }
    // One panel: its title and origin; its frame is rows x cols (default:
    // the whole picture's).
    void panel_at(int i, const std::string& title, Index rows = 0, Index cols = 0) {
        x0_ = margin + i * (panel + gap);
        out_ << "<text x='" << x0_ << "' y='" << margin - 12 << "' class='title'>" << title
             << "</text>\n";
        out_ << "<rect x='" << x0_ << "' y='" << margin << "' width='"
             << static_cast<double>(cols > 0 ? cols : cols_) * cell_ << "' height='"
             << static_cast<double>(rows > 0 ? rows : rows_) * cell_ << "' class='frame'/>\n";
    }
    void box(const Box2& b, const std::string& fill, const std::string& stroke,
             const std::string& cls, const std::string& label) {
        // Stored cells may lie outside the array (edge padding): clip to it.
        const Index c0 = std::max<Index>(b.second.first, 0),
                    c1 = std::min(b.second.last, cols_ - 1);
        const Index r0 = std::max<Index>(b.first.first, 0), r1 = std::min(b.first.last, rows_ - 1);
        if (c0 > c1 || r0 > r1) return;
        const double x = x0_ + static_cast<double>(c0) * cell_;
        const double y = margin + static_cast<double>(r0) * cell_;
        const double w = static_cast<double>(c1 - c0 + 1) * cell_;
        const double h = static_cast<double>(r1 - r0 + 1) * cell_;
        out_ << "<rect x='" << x << "' y='" << y << "' width='" << w << "' height='" << h
             << "' fill='" << fill << "' stroke='" << stroke << "' class='" << cls << "'/>\n";
        if (!label.empty() && w >= 22 && h >= 14)
            out_ << "<text x='" << x + w / 2 << "' y='" << y + h / 2 + 4 << "' class='label'>"
                 << label << "</text>\n";
    }
    void note(int line, const std::string& text) {
        out_ << "<text x='" << margin << "' y='" << margin + rows_ * cell_ + 24 + 16 * line
             << "' class='note'>" << text << "</text>\n";
    }
    std::string finish(int panels, int notes) const {
        std::ostringstream svg;
        const double w = 2 * margin + panels * panel + (panels - 1) * gap;
        const double h = margin + rows_ * cell_ + 24 + 16 * notes + 8;
        svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << w << "' height='" << h
            << "' viewBox='0 0 " << w << ' ' << h << "'>\n"
            << "<style>text{font-family:sans-serif;font-size:12px}"
               ".title{font-size:14px;font-weight:bold}.label{text-anchor:middle;fill:#fff}"
               ".note{fill:#333}.frame{fill:none;stroke:#000;stroke-width:1.5}"
               ".owned{stroke-width:1;fill-opacity:0.85}.stored{fill:none;stroke-width:2;"
               "stroke-dasharray:5 3}.piece{stroke-width:2.5;fill-opacity:0.85}"
               ".halo{stroke-width:2.5;stroke-dasharray:4 2;fill-opacity:0.85}"
               ".zero{stroke-width:1}</style>\n"
            << "<rect width='100%' height='100%' fill='#fff'/>\n"
            << out_.str() << "</svg>\n";
        return svg.str();
    }

  private:
    static constexpr double panel = 300, gap = 40, margin = 30;
    Index rows_, cols_;
    double cell_ = 1, x0_ = 0;
    std::ostringstream out_;
};

// Rows and columns of the picture of 1-D (one row) and 2-D data.
std::pair<Index, Index> picture_extents(const Shape& shape);

void draw_senders(Svg& svg, const Distribution& sd, const std::string& title);

// Every piece of the pair, coloured by sender and outlined by receiver.
int draw_pieces(Svg& svg, const Side& send, const Side& recv);

void save(const std::string& file, const std::string& text);

} // namespace dri::plan_view
