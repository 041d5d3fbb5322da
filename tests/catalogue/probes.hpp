// Probes for the support catalogue (lib/core/support.cpp): each one exercises one cuDNN enum value
// or one catalogue condition through the public C API on a tiny problem and reports the status
// and the diagnostic codes of the call where the value or condition matters. The catalogue tests
// compare these observations with the rows.
#pragma once

#include <dnncompat/dnncompat.h>

#include <string>
#include <string_view>
#include <vector>

namespace dnncompat::test {

struct Observation {
    bool probed = false; // false: no probe exists for this value (must be rare; `what` says why)
    dnncompatStatus_t status = DNNCOMPAT_STATUS_SUCCESS; // status of the call that used the value
    std::vector<std::string> codes; // diagnostic codes collected during that call (diag::collected())
    std::string what;               // one line: which call(s) the probe made, on which problem
};

// Exercises enum value `value` of cuDNN enum type `type` (names as in lib/core/enum_table.inc,
// e.g. "cudnnDataType_t", "CUDNN_DATA_HALF") through the public C API, in the call where it
// matters most (a data type through a compute call, an algorithm through its convolution call, a
// mode through its operation, a descriptor-only value through the setter that takes it and the
// operation that then reads it), on a problem of a few hundred elements at most. Diagnostics are
// cleared first; every object the probe creates is destroyed. A pair not in the enum table gives
// probed = false.
Observation probe_enum_value(std::string_view type, std::string_view value);

// Makes the library meet the run-time condition of support-catalogue row `code` (e.g.
// "DNNC-POOL-EMPTY-WINDOW": a max-pooling window entirely in padding) and reports the call that
// met it. Rows that stand for one enum value (e.g. DNNC-CONV-MODE-CONVOLUTION, or any row whose
// subject and value name an enum-table entry) run that value's probe. A code with no probe, or
// no row, gives probed = false.
Observation probe_condition(std::string_view code);

} // namespace dnncompat::test
