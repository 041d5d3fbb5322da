// The diagnostic codes of the support catalogue as named constants: diag::code::conv_fwd_algo_fft
// is "DNNC-CONV-FWD-ALGO-FFT". Every code is written once, in core/diag_codes.inc; emitting sites
// (diag::emit, diag::unsupported) take a Code, which only that list makes, so a misspelt code
// does not compile. tests/catalogue/diag_codes_test.cpp checks the list against the catalogue
// (a row for every code, a code for every condition row) and that no "DNNC-..." literal is
// left in lib/ or tools/ outside this module.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dnncompat::diag {

// Which pass of an operation a catalogue row is about: `backward` for a row of the backward
// pass only (DNNC-CONV-BWD-DTYPE-HALF beside the forward's DNNC-CONV-DTYPE-HALF), else `any`.
enum class Pass { any, backward };

// One catalogue code. Default-constructed: no code (empty(); e.g. a plan without a fallback).
class Code {
public:
    constexpr Code() = default;
    // Only core/diag_codes.inc names codes: use the constants of diag::code.
    constexpr explicit Code(const char *text, Pass pass) : text_(text), pass_(pass) {}

    // The code's text, e.g. "DNNC-CONV-FWD-ALGO-FFT"; "" for no code.
    constexpr const char *c_str() const { return text_; }
    constexpr bool empty() const { return *text_ == '\0'; }
    constexpr Pass pass() const { return pass_; }

    constexpr operator std::string_view() const { return text_; }
    constexpr operator const char *() const { return text_; }
    operator std::string() const { return text_; }

    friend constexpr bool operator==(Code a, Code b) { return std::string_view(a) == std::string_view(b); }
    friend constexpr bool operator!=(Code a, Code b) { return !(a == b); }

private:
    const char *text_ = "";
    Pass pass_ = Pass::any;
};

// The codes, one constant per catalogue condition row (core/diag_codes.inc).
namespace code {
#define DNNCOMPAT_DIAG_CODE(name, text, pass) inline constexpr Code name{text, Pass::pass};
#include "core/diag_codes.inc"
#undef DNNCOMPAT_DIAG_CODE
} // namespace code

// The code prefixes of the generated catalogue rows: one per legacy-API function
// ("DNNC-FN-cudnnConvolutionForward") and one per enum value ("DNNC-ENUM-CUDNN_POOLING_MAX").
inline constexpr std::string_view kFunctionRowPrefix = "DNNC-FN-";
inline constexpr std::string_view kEnumRowPrefix = "DNNC-ENUM-";

// Every constant of diag::code, in the list's order.
const std::vector<Code> &all_codes();

// The constant whose text is `text`, or nullptr (a generated row's code, or none).
const Code *find_code(std::string_view text);

} // namespace dnncompat::diag
