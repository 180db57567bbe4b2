// The core's error table (src/core/error.hpp) is the one list of error
// codes; the public C header, the public C++ header and docs/errors.md are
// read here as text and checked against it. Each problem is reported as
// "<file>: <code>: <what disagrees>".
#include "core/error.hpp"

#include <doctest/doctest.h>

#include <charconv>
#include <cstddef>
#include <fstream>
#include <map>
// GCC 12 with -fsanitize=address reports a false -Wmaybe-uninitialized
// inside std::regex's std::function members (GCC bug 105562).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#ifndef DRI_SOURCE_DIR
#error "DRI_SOURCE_DIR (the source tree's root) must be defined for this test"
#endif

namespace {

using dri::core::errc_table;
using dri::core::ErrcInfo;
using Problems = std::vector<std::string>;

const std::string c_header = "include/dri/dri.h";
const std::string cxx_header = "include/dri/dri.hpp";
const std::string errors_doc = "docs/errors.md";

// The text of a file of the source tree ("" when it cannot be read).
std::string read_source(const std::string& relative, bool& ok) {
    std::ifstream in(std::string(DRI_SOURCE_DIR) + "/" + relative, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    ok = static_cast<bool>(in) && !text.str().empty();
    return ok ? text.str() : std::string();
}

std::string trim(const std::string& s) {
    const char* blank = " \t\r\n";
    std::size_t b = s.find_first_not_of(blank);
    if (b == std::string::npos) return {};
    return s.substr(b, s.find_last_not_of(blank) - b + 1);
}

// s without its C and C++ comments (string literals are not expected here).
std::string strip_comments(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        if (s.compare(i, 2, "/*") == 0) {
            std::size_t end = s.find("*/", i + 2);
            i = end == std::string::npos ? s.size() : end + 2;
            out += ' ';
        } else if (s.compare(i, 2, "//") == 0) {
            std::size_t end = s.find('\n', i);
            i = end == std::string::npos ? s.size() : end;
        } else {
            out += s[i++];
        }
    }
    return out;
}

bool parse_int(const std::string& s, int& value) {
    const char* first = s.data();
    const char* last = s.data() + s.size();
    auto [end, ec] = std::from_chars(first, last, value);
    return ec == std::errc() && end == last && first != last;
}

const ErrcInfo* row_named(const std::string& name) {
    for (const ErrcInfo& row : errc_table())
        if (name == row.name) return &row;
    return nullptr;
}

std::string describe(const ErrcInfo& row) {
    return std::string(row.name) + " (code " + std::to_string(row.value) + ")";
}

// Every "#define DRI_SUCCESS N" / "#define DRI_ERR_X N" of the C header is
// a row of the table with the table's value, and every row is defined once.
Problems check_c_header(const std::string& text) {
    Problems problems;
    auto problem = [&](const std::string& code, const std::string& what) {
        problems.push_back(c_header + ": " + code + ": " + what);
    };
    static const std::regex define(R"(^[ \t]*#[ \t]*define[ \t]+(DRI_SUCCESS|DRI_ERR_\w+)\b(.*)$)",
                                   std::regex::multiline);
    std::map<std::string, int> defined;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), define);
         it != std::sregex_iterator(); ++it) {
        std::string name = (*it)[1];
        std::string body = trim(strip_comments((*it)[2]));
        const ErrcInfo* row = row_named(name);
        if (++defined[name] == 2) problem(name, "defined more than once");
        int value = 0;
        if (!parse_int(body, value)) {
            problem(name, "defined as '" + body + "', not as a decimal number");
        } else if (!row) {
            problem(name, "defined as " + std::to_string(value) +
                              " but is not in the core's error table (src/core/error.hpp)");
        } else if (value != row->value) {
            problem(name, "defined as " + std::to_string(value) + ", the core's table says " +
                              std::to_string(row->value));
        }
    }
    for (const ErrcInfo& row : errc_table())
        if (defined.count(row.name) == 0)
            problem(describe(row), "no #define " + std::string(row.name));
    return problems;
}

// The C++ header's enum class dri::Errc has one enumerator per row, spelled
// as the core's enumerator and defined as the row's DRI_ERR_ macro.
Problems check_cxx_header(const std::string& text) {
    Problems problems;
    auto problem = [&](const std::string& code, const std::string& what) {
        problems.push_back(cxx_header + ": " + code + ": " + what);
    };
    std::string code = strip_comments(text);
    static const std::regex head(R"(enum\s+class\s+Errc\b[^{;]*\{)");
    std::smatch m;
    if (!std::regex_search(code, m, head)) {
        problem("dri::Errc", "no 'enum class Errc { ... }' found");
        return problems;
    }
    std::size_t begin = static_cast<std::size_t>(m.position(0) + m.length(0));
    std::size_t end = code.find('}', begin);
    if (end == std::string::npos) {
        problem("dri::Errc", "the enum's '}' is missing");
        return problems;
    }
    std::map<std::string, std::string> enumerators; // enumerator -> its initializer
    std::istringstream body(code.substr(begin, end - begin));
    for (std::string item; std::getline(body, item, ',');) {
        item = trim(item);
        if (item.empty()) continue;
        std::size_t eq = item.find('=');
        std::string id = trim(item.substr(0, eq));
        std::string init = eq == std::string::npos ? std::string() : trim(item.substr(eq + 1));
        if (!enumerators.emplace(id, init).second)
            problem("dri::Errc::" + id, "enumerator declared more than once");
    }
    for (const ErrcInfo& row : errc_table()) {
        std::string id = std::string("dri::Errc::") + row.enumerator;
        auto it = enumerators.find(row.enumerator);
        if (it == enumerators.end())
            problem(describe(row), "no enumerator " + id + " = " + row.name);
        else if (it->second != row.name)
            problem(describe(row), id + " = " + (it->second.empty() ? "<implicit>" : it->second) +
                                       ", the core's table says " + id + " = " + row.name);
    }
    std::set<std::string> known;
    for (const ErrcInfo& row : errc_table())
        known.insert(row.enumerator);
    for (const auto& [id, init] : enumerators)
        if (known.count(id) == 0)
            problem("dri::Errc::" + id,
                    "= " + init + " is not in the core's error table (src/core/error.hpp)");
    return problems;
}

// docs/errors.md: "`DRI_SUCCESS` (0)" in the prose, and a table with one
// row "| `DRI_ERR_X` | N | ... |" per other code, in code order; no other
// DRI_ERR_ name anywhere on the page.
Problems check_errors_doc(const std::string& text) {
    Problems problems;
    auto problem = [&](const std::string& code, const std::string& what) {
        problems.push_back(errors_doc + ": " + code + ": " + what);
    };
    const ErrcInfo& success = errc_table()[0];
    std::smatch m;
    static const std::regex success_mention(R"(`DRI_SUCCESS` \(([^)]*)\))");
    if (!std::regex_search(text, m, success_mention)) {
        problem(describe(success),
                "not mentioned as `DRI_SUCCESS` (" + std::to_string(success.value) + ")");
    } else if (int value = 0; !parse_int(m[1], value) || value != success.value) {
        problem(describe(success), "given as (" + m[1].str() + "), the core's table says " +
                                       std::to_string(success.value));
    }

    static const std::regex table_row(R"(^\|[ \t]*`(DRI_\w+)`[ \t]*\|[ \t]*([^|\n]*?)[ \t]*\|)",
                                      std::regex::multiline);
    std::map<std::string, int> listed;
    int previous = -1;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), table_row);
         it != std::sregex_iterator(); ++it) {
        std::string name = (*it)[1];
        std::string cell = (*it)[2];
        const ErrcInfo* row = row_named(name);
        if (++listed[name] == 2) problem(name, "listed more than once in the table of codes");
        int value = 0;
        if (!parse_int(cell, value)) {
            problem(name, "value column is '" + cell + "', not a decimal number");
        } else if (!row) {
            problem(name, "listed with value " + std::to_string(value) +
                              " but is not in the core's error table (src/core/error.hpp)");
        } else if (value != row->value) {
            problem(name, "listed with value " + std::to_string(value) +
                              ", the core's table says " + std::to_string(row->value));
        }
        if (row) {
            if (row->value < previous)
                problem(name, "listed after code " + std::to_string(previous) +
                                  "; the table of codes is in code order");
            previous = row->value;
        }
    }
    for (const ErrcInfo& row : errc_table())
        if (row.value != success.value && listed.count(row.name) == 0)
            problem(describe(row), "no row in the table of codes");

    // Any other mention of a DRI_ERR_ name (a renamed or removed code) that
    // is not a row of the table of codes (those are reported above).
    static const std::regex mention(R"(DRI_ERR_[A-Z0-9_]*[A-Z0-9])");
    std::set<std::string> reported;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), mention);
         it != std::sregex_iterator(); ++it) {
        std::string name = (*it)[0];
        if (!row_named(name) && listed.count(name) == 0 && reported.insert(name).second)
            problem(name, "mentioned but is not in the core's error table (src/core/error.hpp)");
    }
    return problems;
}

void report(const std::string& file, Problems (*check)(const std::string&)) {
    bool ok = false;
    std::string text = read_source(file, ok);
    if (!ok) {
        FAIL_CHECK(file << ": cannot be read under " << DRI_SOURCE_DIR);
        return;
    }
    Problems problems = check(text);
    for (const std::string& p : problems)
        FAIL_CHECK(p);
    CHECK_MESSAGE(problems.empty(), file << " disagrees with src/core/error.hpp's table in "
                                         << problems.size() << " place(s)");
}

// The text with pattern's first match replaced; a self-test fails when the
// pattern no longer matches (the file's format changed).
std::string mutate(const std::string& text, const std::string& pattern,
                   const std::string& replacement) {
    std::string out = std::regex_replace(text, std::regex(pattern, std::regex::multiline),
                                         replacement, std::regex_constants::format_first_only);
    REQUIRE_MESSAGE(out != text, "self-test: pattern '" << pattern << "' matches nothing");
    return out;
}

bool names(const Problems& problems, const std::string& file, const std::string& code) {
    for (const std::string& p : problems)
        if (p.rfind(file + ": ", 0) == 0 && p.find(code) != std::string::npos) return true;
    return false;
}

std::string source(const std::string& file) {
    bool ok = false;
    std::string text = read_source(file, ok);
    REQUIRE_MESSAGE(ok, file << ": cannot be read under " << DRI_SOURCE_DIR);
    return text;
}

} // namespace

TEST_CASE("error table: one row per code, in code order, names and enumerators unique") {
    using dri::core::Errc;
    REQUIRE(errc_table().size() == static_cast<std::size_t>(dri::core::errc_count));
    CHECK(std::string(errc_table()[0].name) == "DRI_SUCCESS");
    CHECK(errc_table()[0].code == Errc::success);
    std::set<std::string> names_seen, enumerators_seen;
    for (const ErrcInfo& row : errc_table()) {
        INFO("code " << row.value << " (" << std::string(row.name) << ")");
        CHECK(static_cast<int>(row.code) == row.value);
        CHECK(names_seen.insert(row.name).second);
        CHECK(enumerators_seen.insert(row.enumerator).second);
        if (row.value != 0) CHECK(std::string(row.name).rfind("DRI_ERR_", 0) == 0);
        CHECK(std::string(row.description).size() > 3);
        CHECK(std::string(dri::core::errc_name(row.code)) == row.name);
        CHECK(std::string(dri::core::errc_description(row.code)) == row.description);
    }
    CHECK(std::string(dri::core::errc_name(static_cast<Errc>(-1))) == "DRI_ERR_UNKNOWN");
    CHECK(std::string(dri::core::errc_description(static_cast<Errc>(dri::core::errc_count))) ==
          "unknown error code");
}

TEST_CASE("error table: include/dri/dri.h defines every code with the table's value") {
    report(c_header, check_c_header);
}

TEST_CASE("error table: include/dri/dri.hpp maps every dri::Errc to its DRI_ERR_ macro") {
    report(cxx_header, check_cxx_header);
}

TEST_CASE("error table: docs/errors.md lists every code with its name and value") {
    report(errors_doc, check_errors_doc);
}

// The checks above must be able to fail: each is run on a copy of the real
// file with one code broken, and must name the file and the code.
TEST_CASE("error table: the checks catch a broken copy of each file") {
    const ErrcInfo& row = errc_table()[9]; // any code but DRI_SUCCESS
    const std::string name = row.name;
    const std::string value = std::to_string(row.value);
    const std::string wrong = std::to_string(row.value + 1);

    SUBCASE("dri.h") {
        std::string text = source(c_header);
        REQUIRE_MESSAGE(check_c_header(text).empty(),
                        "self-test needs a clean " << c_header << ": fix the problems above");
        std::string def = "(#[ \\t]*define[ \\t]+" + name + "[ \\t]+)" + value + "\\b";
        CHECK(names(check_c_header(mutate(text, def, "$01" + wrong)), c_header, name));
        CHECK(names(check_c_header(mutate(text, def, "$01(" + value + ")")), c_header, name));
        CHECK(names(check_c_header(mutate(text, def, "#define DRI_ERR_RENAMED " + value)), c_header,
                    name));
        CHECK(names(check_c_header(text + "\n#define DRI_ERR_EXTRA 99\n"), c_header,
                    "DRI_ERR_EXTRA"));
        CHECK(
            names(check_c_header(text + "\n#define " + name + " " + value + "\n"), c_header, name));
    }
    SUBCASE("dri.hpp") {
        std::string text = source(cxx_header);
        REQUIRE_MESSAGE(check_cxx_header(text).empty(),
                        "self-test needs a clean " << cxx_header << ": fix the problems above");
        std::string id = row.enumerator;
        std::string other = errc_table()[1].name;
        CHECK(names(
            check_cxx_header(mutate(text, "\\b" + id + " = " + name + "\\b", id + " = " + other)),
            cxx_header, name));
        CHECK(names(check_cxx_header(mutate(text, "\\b" + id + " = " + name + ",", "")), cxx_header,
                    name));
        CHECK(names(
            check_cxx_header(mutate(text, "\\b" + id + " = " + name + ",", "$&\n    extra = 99,")),
            cxx_header, "extra"));
    }
    SUBCASE("docs/errors.md") {
        std::string text = source(errors_doc);
        REQUIRE_MESSAGE(check_errors_doc(text).empty(),
                        "self-test needs a clean " << errors_doc << ": fix the problems above");
        std::string cell = "(\\|[ \\t]*`" + name + "`[ \\t]*\\|[ \\t]*)" + value + "\\b";
        CHECK(names(check_errors_doc(mutate(text, cell, "$01" + wrong)), errors_doc, name));
        CHECK(names(check_errors_doc(mutate(text, "^\\|[ \\t]*`" + name + "`[^\\n]*\\n", "")),
                    errors_doc, name));
        CHECK(names(check_errors_doc(mutate(text, "`DRI_SUCCESS` \\(0\\)", "`DRI_SUCCESS` (1)")),
                    errors_doc, "DRI_SUCCESS"));
        CHECK(names(check_errors_doc(text + "\nSee DRI_ERR_GONE.\n"), errors_doc, "DRI_ERR_GONE"));
    }
}
