// The library behaves as its support catalogue says, row by row:
// - every enum value of the reference cuDNN headers and of dnncompat's own enum table has a row;
//   codes are unique and every related code exists;
// - a function row says "not provided" exactly when the library exports no such entry point;
// - every enum-value and condition row is exercised through the public C API (tests/catalogue/
//   probes.cpp): a native row's call succeeds without a fallback, an emulated or fallback row's
//   call succeeds and emits its diagnostic (or one of the conditions it relates to), an
//   unsupported row's call returns the row's status.
#include "catalogue/probes.hpp"
#include "core/graph_attributes.hpp"
#include "core/support.hpp"
#include "solver/solver.hpp"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace dnncompat;
using support::Class;
using support::Kind;
using support::Row;

struct OwnEnum {
    const char *type, *value;
    long long numeric;
};
const OwnEnum kOwnEnums[] = {
#define DNNCOMPAT_ENUM(t, v, n) {t, v, n},
#include "core/enum_table.inc"
#undef DNNCOMPAT_ENUM
};

std::string describe(const test::Observation &o) {
    std::string codes;
    for (const auto &c : o.codes) codes += " " + c;
    return std::string(dnncompatGetErrorString(o.status)) + " [" + codes + " ] (" + o.what + ")";
}

bool emitted_any(const test::Observation &o, const Row &r) {
    for (const auto &c : o.codes) {
        if (c == r.code) return true;
        if (std::find(r.related.begin(), r.related.end(), c) != r.related.end()) return true;
    }
    return false;
}

// True when a function the library provides takes enum type `type` (directly or through the Set*
// functions of its descriptors).
bool taken_by_a_provided_function(const std::string &type) {
    for (const auto &f : support::catalogue()) {
        if (f.kind != Kind::function || (f.cls == Class::unsupported && f.related.empty())) continue;
        if (std::find(f.takes.begin(), f.takes.end(), type) != f.takes.end()) return true;
    }
    return false;
}

// The verdict of a row against what its probe saw; empty when they agree.
std::string check(const Row &r, const test::Observation &o) {
    if (!o.probed) {
        // A value no provided function takes cannot be used in a call: it must be unsupported.
        if (r.kind == Kind::enum_value && r.cls == Class::unsupported && !taken_by_a_provided_function(r.subject))
            return {};
        return "no probe: " + o.what;
    }
    switch (r.cls) {
    case Class::native:
        // Native, except under the conditions it relates to (Winograd where oneDNN's does not apply).
        if (o.status != DNNCOMPAT_STATUS_SUCCESS) return "native, but the call failed: " + describe(o);
        for (const auto &c : o.codes)
            if (support::row(c).cls >= Class::fallback &&
                std::find(r.related.begin(), r.related.end(), c) == r.related.end())
                return "native, but the call fell back: " + describe(o);
        return {};
    case Class::emulated:
    case Class::fallback:
        if (o.status != DNNCOMPAT_STATUS_SUCCESS)
            return std::string(support::class_name(r.cls)) + ", but the call failed: " + describe(o);
        if (!emitted_any(o, r))
            return std::string(support::class_name(r.cls)) + ", but no diagnostic of it: " + describe(o);
        return {};
    case Class::unsupported:
        if (o.status != r.status)
            return std::string("unsupported with ") + dnncompatGetErrorString(r.status) + ", but: " + describe(o);
        return {};
    }
    return "?";
}

TEST(Catalogue, EveryEnumValueHasARow) {
    for (const auto &e : kOwnEnums) {
        const Row *r = support::find_enum_value(e.value);
        ASSERT_NE(r, nullptr) << e.type << " " << e.value;
        EXPECT_EQ(r->subject, e.type) << e.value;
        EXPECT_EQ(r->numeric, e.numeric) << e.value;
    }
}

TEST(Catalogue, CodesAreUniqueAndRelatedCodesExist) {
    std::set<std::string> codes;
    for (const auto &r : support::catalogue()) {
        EXPECT_TRUE(codes.insert(r.code).second) << "duplicate " << r.code;
        EXPECT_FALSE(r.instead.empty()) << r.code;
        EXPECT_EQ(r.cls == Class::unsupported, r.status != DNNCOMPAT_STATUS_SUCCESS) << r.code;
    }
    for (const auto &r : support::catalogue())
        for (const auto &c : r.related) EXPECT_TRUE(codes.count(c)) << r.code << " relates to unknown " << c;
}

// A function row is "not provided" (unsupported, no related condition) exactly when
// libdnncompat.so exports no dnncompat<Name> entry point. The test itself links the internals
// statically; the shared library is opened only to look names up (nothing in it is called), and
// RTLD_LOCAL keeps its symbols from standing in for the test's own.
TEST(Catalogue, FunctionRowsMatchTheLibrarysEntryPoints) {
    void *lib = dlopen(DNNCOMPAT_SHARED_LIBRARY, RTLD_LAZY | RTLD_LOCAL);
    ASSERT_NE(lib, nullptr) << dlerror();
    std::size_t provided = 0, missing = 0;
    for (const auto &r : support::catalogue()) {
        if (r.kind != Kind::function) continue;
        const std::string symbol = "dnncompat" + r.subject.substr(5); // cudnnX -> dnncompatX
        const bool exported = dlsym(lib, symbol.c_str()) != nullptr;
        const bool not_provided = r.cls == Class::unsupported && r.related.empty();
        EXPECT_EQ(exported, !not_provided) << r.subject << ": the catalogue says "
                                           << (not_provided ? "not provided" : "provided") << ": " << r.instead;
        (exported ? provided : missing) += 1;
    }
    EXPECT_GT(provided, 150u);
    std::printf("function rows: %zu provided, %zu not provided\n", provided, missing);
    dlclose(lib);
}

// Unsupported function rows that the library provides return their status: their related
// condition's probe runs the function.
TEST(Catalogue, ProvidedUnsupportedFunctionsReturnTheirStatus) {
    for (const auto &r : support::catalogue()) {
        if (r.kind != Kind::function || r.cls != Class::unsupported || r.related.empty()) continue;
        const auto o = test::probe_condition(r.related.front());
        EXPECT_EQ(check(r, o), "") << r.subject;
    }
}

// check() accepts an unprobed value only when no provided function takes its type.
TEST(Catalogue, EveryEnumValueRowBehavesAsItSays) {
    std::size_t probed = 0;
    for (const auto &e : kOwnEnums) {
        const Row *row = support::find_enum_value(e.value);
        ASSERT_NE(row, nullptr) << e.type << " " << e.value << " has no catalogue row";
        const Row &r = *row;
        const auto o = test::probe_enum_value(e.type, e.value);
        EXPECT_EQ(check(r, o), "") << r.code;
        probed += o.probed;
    }
    std::printf("%zu of %zu enum values exercised through the library\n", probed, std::size(kOwnEnums));
}

// The values of the enums only the functions dnncompat does not provide take (RNN, CTC loss,
// attention) are unsupported, like those functions.
TEST(Catalogue, ValuesOfNotProvidedFunctionsAreUnsupported) {
    std::set<std::string> own;
    for (const auto &e : kOwnEnums) own.insert(e.value);
    std::size_t n = 0;
    for (const auto &r : support::catalogue()) {
        if (r.kind != Kind::enum_value || own.count(r.value)) continue;
        EXPECT_EQ(r.cls, Class::unsupported) << r.code;
        EXPECT_EQ(r.status, DNNCOMPAT_STATUS_NOT_SUPPORTED) << r.code;
        ++n;
    }
    EXPECT_GT(n, 0u);
}

TEST(Catalogue, EveryConditionRowBehavesAsItSays) {
    for (const auto &r : support::catalogue()) {
        if (r.kind != Kind::condition) continue;
        if (r.code == "DNNC-FN-UNKNOWN") continue; // a trace-level condition: see the report and replay tests
        const auto o = test::probe_condition(r.code);
        EXPECT_EQ(check(r, o), "") << r.code;
    }
}

} // namespace

// The notes the catalogue says engines report (core/graph_attributes.hpp) are exactly those some
// solver of the registry can report.
TEST(Catalogue, EngineNotesAreTheSolversNotes) {
    std::set<int> numerical, behavior;
    for (const auto *s : dnncompat::solver::all()) {
        for (auto n : s->possible_numerical_notes().list()) numerical.insert(static_cast<int>(n));
        for (auto n : s->behavior_notes().list()) behavior.insert(static_cast<int>(n));
    }
    const auto &cn = dnncompat::graph::engine_numerical_notes();
    const auto &cb = dnncompat::graph::engine_behavior_notes();
    EXPECT_EQ(numerical, std::set<int>(cn.begin(), cn.end()));
    EXPECT_EQ(behavior, std::set<int>(cb.begin(), cb.end()));
}
