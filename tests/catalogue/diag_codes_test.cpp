// The diagnostic codes (lib/core/diag_codes.hpp) against the support catalogue: every constant
// has its catalogue row, every catalogue row's code is a constant or a generated function / enum
// row, each row's pass is its code's, a string cannot stand in for a code at an emitting site,
// and no "DNNC-..." literal is left in lib/ or tools/ outside the codes' one definition place.
#include "core/diag_codes.hpp"
#include "core/support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>

namespace {

using namespace dnncompat;
namespace fs = std::filesystem;

// diag::emit / diag::unsupported take a Code, and only the constants make one: a literal (a
// typo included) does not compile at an emitting site.
static_assert(!std::is_convertible_v<const char *, diag::Code>, "a string must not convert to a code");
static_assert(!std::is_convertible_v<std::string, diag::Code>, "a string must not convert to a code");
static_assert(diag::code::conv_fwd_algo_fft == diag::Code("DNNC-CONV-FWD-ALGO-FFT", diag::Pass::any));
static_assert(diag::code::conv_bwd_dtype_half.pass() == diag::Pass::backward);
static_assert(diag::Code().empty());

bool starts_with(const std::string &s, std::string_view prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

TEST(DiagCodes, EveryCodeHasItsCatalogueRow) {
    std::set<std::string> seen;
    for (const diag::Code &c : diag::all_codes()) {
        EXPECT_TRUE(seen.insert(c.c_str()).second) << "defined twice: " << c.c_str();
        const support::Row *r = nullptr;
        ASSERT_NO_THROW(r = &support::row(c)) << c.c_str() << " has no catalogue row";
        EXPECT_EQ(r->code, c.c_str());
        EXPECT_TRUE(r->pass == c.pass()) << c.c_str();
        EXPECT_EQ(diag::find_code(c.c_str()), &c);
    }
    EXPECT_EQ(diag::find_code("DNNC-NO-SUCH-CODE"), nullptr);
}

TEST(DiagCodes, EveryCatalogueRowCodeIsDefined) {
    for (const support::Row &r : support::catalogue()) {
        if (diag::find_code(r.code) != nullptr) continue;
        // The rows generated per function and per enum value have generated codes.
        if (r.kind == support::Kind::function) {
            EXPECT_TRUE(starts_with(r.code, diag::kFunctionRowPrefix)) << r.code;
        } else if (r.kind == support::Kind::enum_value) {
            EXPECT_TRUE(starts_with(r.code, diag::kEnumRowPrefix)) << r.code;
        } else {
            ADD_FAILURE() << "condition row " << r.code << " has no diag::code constant (core/diag_codes.inc)";
        }
    }
}

// The pass is data of the row; it says what the codes' "-BWD-" spelling said before.
TEST(DiagCodes, BackwardRowsAreTheBwdCodes) {
    for (const support::Row &r : support::catalogue())
        EXPECT_EQ(r.pass == diag::Pass::backward, r.code.find("-BWD-") != std::string::npos) << r.code;
    EXPECT_TRUE(support::row(diag::code::conv_bwd_dtype_bfloat16).pass == diag::Pass::backward);
    EXPECT_TRUE(support::row(diag::code::conv_dtype_bfloat16).pass == diag::Pass::any);
}

// Codes are written once: core/diag_codes.inc (and the generated rows' prefixes in
// core/diag_codes.hpp). Anything else names a constant.
TEST(DiagCodes, NoCodeLiteralOutsideTheDefinitions) {
    const std::regex literal("\"DNNC-[A-Za-z0-9_-]*\"");
    const fs::path root(DNNCOMPAT_SOURCE_DIR);
    std::string stray;
    std::size_t files = 0;
    for (const char *dir : {"lib", "tools"}) {
        for (const auto &e : fs::recursive_directory_iterator(root / dir)) {
            const fs::path &f = e.path();
            const std::string ext = f.extension().string();
            if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".h" && ext != ".inc")) continue;
            if (f.filename() == "diag_codes.inc" || f.filename() == "diag_codes.hpp") continue;
            ++files;
            std::ifstream in(f);
            std::string line;
            for (int n = 1; std::getline(in, line); ++n)
                if (std::regex_search(line, literal))
                    stray += fs::relative(f, root).string() + ":" + std::to_string(n) + ": " + line + "\n";
        }
    }
    EXPECT_GT(files, 50u) << "the source tree was not found under " << root;
    EXPECT_TRUE(stray.empty()) << "code literals outside lib/core/diag_codes.inc (use diag::code::*):\n" << stray;
}

} // namespace
