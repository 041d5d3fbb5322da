// The layers of lib/ (README.md, "Layout"): a folder includes only folders of a lower layer and
// itself. The order is written once, in README's table; this test reads it and checks every
// #include of every file under lib/, so an include that goes upward or sideways fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

/// Folder name (e.g. "conv") -> layer.
using Layers = std::map<std::string, int>;

struct Source {
    std::string path;   ///< for messages, relative to the repository
    std::string folder; ///< the lib/ folder it lives in
    std::string text;
};

std::string read(const fs::path &p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// The rows "| N | `lib/X/` | ... |" that follow the "<!-- layers" marker, up to the first line
/// that is not a table row. Throws std::runtime_error when there is no marker or no row.
Layers parse_layers(const std::string &readme) {
    const std::size_t marker = readme.find("<!-- layers");
    if (marker == std::string::npos) throw std::runtime_error("README.md has no <!-- layers marker");
    std::istringstream in(readme.substr(marker));
    std::string line;
    std::getline(in, line); // the marker itself
    const std::regex row(R"(^\|\s*(\d+)\s*\|\s*`lib/([a-z_]+)/`\s*\|)");
    Layers out;
    while (std::getline(in, line) && !line.empty() && line[0] == '|') {
        std::smatch m;
        if (std::regex_search(line, m, row)) out[m[2]] = std::stoi(m[1]);
    }
    if (out.empty()) throw std::runtime_error("README.md's layers table has no rows");
    return out;
}

/// Every include of a folder `others` names (lib/ folders with their layer, and folders that
/// must never be included from lib/, such as the tools'), that breaks the order: "path:line:
/// folder X (layer a) includes Y (layer b)".
std::vector<std::string> violations(const Layers &layers, const std::set<std::string> &forbidden,
                                    const std::vector<Source> &sources) {
    const std::regex include(R"(^\s*#\s*include\s*[<"]([A-Za-z0-9_.+-]+)/)");
    std::vector<std::string> out;
    for (const Source &s : sources) {
        const auto own = layers.find(s.folder);
        std::istringstream in(s.text);
        std::string line;
        for (int n = 1; std::getline(in, line); ++n) {
            std::smatch m;
            if (!std::regex_search(line, m, include)) continue;
            const std::string to = m[1];
            const std::string where = s.path + ":" + std::to_string(n) + ": ";
            if (forbidden.count(to)) {
                out.push_back(where + "lib/" + s.folder + " includes " + to + "/, which is not part of the library");
                continue;
            }
            const auto target = layers.find(to);
            if (target == layers.end() || to == s.folder) continue; // not ours (dnnl, fmt, ...), or itself
            if (own == layers.end()) {
                out.push_back(where + "lib/" + s.folder + " is not in README's layers table");
                continue;
            }
            if (target->second >= own->second)
                out.push_back(where + "lib/" + s.folder + " (layer " + std::to_string(own->second) + ") includes " +
                              to + "/ (layer " + std::to_string(target->second) + ")");
        }
    }
    return out;
}

std::string joined(const std::vector<std::string> &v) {
    std::string out;
    for (const std::string &s : v) out += "\n  " + s;
    return out;
}

const fs::path kRoot = DNNCOMPAT_SOURCE_DIR;

TEST(Layers, TheCheckFindsAnIncludeUpwardOrSideways) {
    const Layers layers{{"core", 0}, {"problem", 1}, {"ops", 1}, {"conv", 3}, {"api", 4}};
    const std::vector<Source> sources{
        {"lib/core/a.cpp", "core", "#include \"core/b.hpp\"\n#include <dnnl.hpp>\n"},             // fine
        {"lib/conv/a.cpp", "conv", "#include \"problem/problem.hpp\"\n#include \"api/x.hpp\"\n"}, // upward
        {"lib/ops/a.cpp", "ops", "  #  include <problem/problem.hpp>\n"},                         // sideways
        {"lib/problem/a.cpp", "problem", "#include \"dnncompat-replay/handlers.hpp\"\n"},         // a tool
    };
    const auto v = violations(layers, {"dnncompat-replay"}, sources);
    ASSERT_EQ(v.size(), 3u) << joined(v);
    EXPECT_EQ(v[0], "lib/conv/a.cpp:2: lib/conv (layer 3) includes api/ (layer 4)");
    EXPECT_EQ(v[1], "lib/ops/a.cpp:1: lib/ops (layer 1) includes problem/ (layer 1)");
    EXPECT_EQ(v[2], "lib/problem/a.cpp:1: lib/problem includes dnncompat-replay/, which is not part of the library");
}

TEST(Layers, TheTableIsReadFromTheReadme) {
    const Layers layers = parse_layers("text\n<!-- layers -->\n| layer | folder | what |\n|---|---|---|\n"
                                       "| 0 | `lib/core/` | x |\n| 2 | `lib/conv/` | y |\n\n| 9 | `lib/late/` | z |\n");
    EXPECT_EQ(layers, (Layers{{"core", 0}, {"conv", 2}}));
    EXPECT_THROW(parse_layers("no marker"), std::runtime_error);
}

TEST(Layers, EveryFolderOfLibIsInTheTable) {
    const Layers layers = parse_layers(read(kRoot / "README.md"));
    std::set<std::string> folders;
    for (const auto &e : fs::directory_iterator(kRoot / "lib"))
        if (e.is_directory()) folders.insert(e.path().filename().string());
    for (const std::string &f : folders)
        EXPECT_TRUE(layers.count(f)) << "lib/" << f << "/ is not in README's layers table";
    for (const auto &[f, layer] : layers)
        EXPECT_TRUE(folders.count(f)) << "README's layers table names lib/" << f << "/, which does not exist";
}

TEST(Layers, NoFolderOfLibIncludesOneAboveIt) {
    const Layers layers = parse_layers(read(kRoot / "README.md"));
    std::set<std::string> forbidden; // tools' and tests' folders: never included from lib/
    for (const char *top : {"tools", "tests"})
        for (const auto &e : fs::directory_iterator(kRoot / top))
            if (e.is_directory()) forbidden.insert(e.path().filename().string());
    for (const auto &[f, layer] : layers) forbidden.erase(f);
    std::vector<Source> sources;
    for (const auto &e : fs::recursive_directory_iterator(kRoot / "lib")) {
        if (!e.is_regular_file()) continue;
        const std::string ext = e.path().extension().string();
        if (ext != ".cpp" && ext != ".hpp" && ext != ".inc" && ext != ".h") continue;
        const fs::path rel = fs::relative(e.path(), kRoot);
        sources.push_back(
            {rel.string(), rel.begin()->string() == "lib" ? std::next(rel.begin())->string() : "", read(e.path())});
    }
    ASSERT_GT(sources.size(), 50u);
    const auto v = violations(layers, forbidden, sources);
    EXPECT_TRUE(v.empty()) << v.size() << " include(s) against README's layer order:" << joined(v);
}

} // namespace
