// Runs every catalogue probe (tests/catalogue/probes.hpp): one per value of the enum table
// (lib/core/enum_table.inc) and one per support-catalogue code (lib/core/support.cpp), prints what
// each observed (type, value or code, status, diagnostic codes, the call), and checks that every
// probe ran except the few listed in kNotProbed. The catalogue's own assertions live elsewhere.
#include "catalogue/probes.hpp"

#include "core/diagnostics.hpp"
#include "core/enums.hpp"
#include "core/logging.hpp"
#include "core/support.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>

namespace {

using dnncompat::test::Observation;

// Enum types (every value), "type value" pairs and catalogue codes that have no probe, each with
// its reason. Keep it short: a new entry needs a reason no call of the library can exercise.
const std::set<std::string> kNotProbed = {
    // Taken only by cudnnSetCallback / cudnnGetCallback, which dnncompat does not implement.
    "cudnnSeverity_t",
    // Taken only by cudnnQueryRuntimeError, which dnncompat does not implement.
    "cudnnErrQueryMode_t",
    // Met by the trace report (a call name outside cuDNN's API), not by any library call.
    "DNNC-FN-UNKNOWN",
    // Count markers of graph-API enums that no settable attribute takes (the engines' notes are
    // read-only, layout types belong to LAYOUT_INFO, which is not implemented): no call passes them.
    "cudnnBackendNumericalNote_t CUDNN_NUMERICAL_NOTE_TYPE_COUNT",
    "cudnnBackendBehaviorNote_t CUDNN_BEHAVIOR_NOTE_TYPE_COUNT",
    "cudnnBackendLayoutType_t CUDNN_LAYOUT_TYPE_COUNT",
    "DNNC-ENUM-CUDNN_NUMERICAL_NOTE_TYPE_COUNT",
    "DNNC-ENUM-CUDNN_BEHAVIOR_NOTE_TYPE_COUNT",
    "DNNC-ENUM-CUDNN_LAYOUT_TYPE_COUNT",
};

bool allowed_unprobed(const std::string &key, const std::string &type = {}) {
    return kNotProbed.count(key) != 0 || (!type.empty() && kNotProbed.count(type) != 0);
}

std::string codes_text(const Observation &o) {
    std::string s;
    for (const auto &c : o.codes) s += (s.empty() ? "" : ",") + c;
    return s.empty() ? "-" : s;
}

void print_row(const std::string &a, const std::string &b, const Observation &o) {
    std::printf("%-34s %-52s %-38s %-44s %s\n", a.c_str(), b.c_str(),
                o.probed ? dnncompatGetErrorString(o.status) : "(not probed)", codes_text(o).c_str(), o.what.c_str());
}

// The table is the output: the library's own stderr log (failed calls, diagnostics) is off.
class ProbesSmoke : public ::testing::Test {
protected:
    void SetUp() override {
        level_ = dnncompat::log::level();
        dnncompat::log::set_level(dnncompat::log::Level::off);
        dnncompat::diag::set_stderr_enabled(false);
    }
    void TearDown() override {
        dnncompat::diag::set_stderr_enabled(true);
        dnncompat::log::set_level(level_);
    }

private:
    dnncompat::log::Level level_ = dnncompat::log::Level::warning;
};

TEST_F(ProbesSmoke, EveryEnumValueIsProbed) {
    int probed = 0, total = 0;
    std::printf("%-34s %-52s %-38s %-44s %s\n", "type", "value", "status", "codes", "what");
    for (const auto &e : dnncompat::enums::all()) {
        const Observation o = dnncompat::test::probe_enum_value(e.type, e.name);
        print_row(e.type, e.name, o);
        ++total;
        probed += o.probed ? 1 : 0;
        const std::string key = std::string(e.type) + " " + e.name;
        EXPECT_FALSE(o.what.empty()) << key;
        if (o.probed) EXPECT_FALSE(allowed_unprobed(key, e.type)) << key << " is probed now: drop it from kNotProbed";
        else EXPECT_TRUE(allowed_unprobed(key, e.type)) << key << " was not probed: " << o.what;
    }
    std::printf("enum values: %d of %d probed\n", probed, total);
    EXPECT_GT(total, 200); // the whole table, not an empty one
}

bool in_enum_table(const std::string &type, const std::string &value) {
    for (const auto &e : dnncompat::enums::all())
        if (type == e.type && value == e.name) return true;
    return false;
}

// Condition rows, and enum-value rows of the types dnncompat's API takes (lib/core/enum_table.inc).
// Not here: function rows (another probe's job) and the values of enum types no dnncompat
// function takes (RNN, CTC, attention: the reference cuDNN headers have them, dnncompat.h not).
// The generated enum-value rows (DNNC-ENUM-*) rerun the enum table's probes: checked, not
// printed twice.
TEST_F(ProbesSmoke, EveryCatalogueCodeIsProbed) {
    int probed = 0, total = 0, functions = 0, foreign = 0;
    std::printf("%-34s %-52s %-38s %-44s %s\n", "area", "code", "status", "codes", "what");
    for (const auto &r : dnncompat::support::catalogue()) {
        const bool enum_row = r.kind == dnncompat::support::Kind::enum_value;
        if (r.kind == dnncompat::support::Kind::function) {
            ++functions;
            continue;
        }
        if (enum_row && !in_enum_table(r.subject, r.value)) {
            ++foreign;
            continue;
        }
        const std::string code = r.code;
        const Observation o = dnncompat::test::probe_condition(code);
        if (code.rfind("DNNC-ENUM-", 0) != 0) print_row(r.area, code, o);
        ++total;
        probed += o.probed ? 1 : 0;
        const std::string type = enum_row ? std::string(r.subject) : std::string();
        EXPECT_FALSE(o.what.empty()) << code;
        if (o.probed) EXPECT_FALSE(allowed_unprobed(code, type)) << code << " is probed now: drop it from kNotProbed";
        else EXPECT_TRUE(allowed_unprobed(code, type)) << code << " was not probed: " << o.what;
    }
    std::printf("catalogue codes: %d of %d probed (not here: %d function rows, %d values of enum types "
                "dnncompat's API does not take)\n",
                probed, total, functions, foreign);
    EXPECT_GT(total, 80);
}

TEST_F(ProbesSmoke, UnknownNamesAreNotProbed) {
    EXPECT_FALSE(dnncompat::test::probe_enum_value("cudnnDataType_t", "CUDNN_DATA_NO_SUCH").probed);
    EXPECT_FALSE(dnncompat::test::probe_enum_value("cudnnNoSuch_t", "CUDNN_DATA_FLOAT").probed);
    EXPECT_FALSE(dnncompat::test::probe_condition("DNNC-NO-SUCH-CODE").probed);
}

} // namespace
