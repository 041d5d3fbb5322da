// Which graph-API (backend) descriptor each recorded cudnnBackend* call touched.
//
// A cuDNN 9 API log prints a backend descriptor by its content, never by its address (see the
// cuDNN API log format notes shipped with the test logs), so the importer infers the links from
// the content printed and the order of the calls, the way cudnn-frontend makes them: it fills one
// descriptor at a time (Create, Set..., Finalize), creates the descriptors a GetAttribute fills
// right before it, and walks returned arrays in order. Each created descriptor gets an id
// ("b7": the 8th backend descriptor of the log); each call gets a "backend" member naming the
// ids it touched and, for each, the rule that found it (schemas/trace.schema.json, "link"):
//   newest-open      the newest live descriptor of the printed type not yet finalized
//   content          the live descriptor of that type whose last printed content is this one
//   first-unprinted  the oldest live descriptor of that type whose content no record showed yet
//   newest           the newest live descriptor of that type (no better rule applied)
//   address          a descriptor element printed by address (cuDNN prints the elements of a
//                    SetAttribute as `[0]: type=...; val=0x...;`) that an earlier link tied to
//                    that address
//   next-print       a descriptor element whose content the next record printing the target
//                    shows (the field that changed): the live descriptor with that content
//   fresh            a descriptor created, and not touched since, before a GetAttribute that
//                    returns descriptors (the array the call fills)
//   destroyed        only a destroyed descriptor has that content (a use after destroy)
// A call no rule links gets "unlinked" with the reason; the replay reports it with its line.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dnncompat::trace {

/// The cudnnBackend* functions an application calls (cuDNN 9 API reference). The log's other
/// cudnnBackend* records (FinalizeGraphVisualize, ExecuteInternal, ..._support_checks) are
/// cuDNN's own work.
bool is_backend_api_call(std::string_view api);

/// Infers the descriptor links of a log's backend calls, one call at a time in log order.
class BackendLinker {
public:
    /// The "backend" member for call `index` of `api` with parsed `args` (its arguments as the
    /// log names them); null when the call is not a backend API call. Updates the live
    /// descriptors.
    nlohmann::ordered_json link(std::string_view api, const nlohmann::ordered_json &args, std::size_t index);

    /// A better link for an element of an earlier call, found when this call printed the
    /// descriptor that call set: call `index`, its backend["elements"][`element`] becomes `link`.
    struct Patch {
        std::size_t index = 0, element = 0;
        nlohmann::ordered_json link;
    };
    /// The patches found since the last take, oldest first.
    std::vector<Patch> take_patches() { return std::move(patches_); }

private:
    /// A SetAttribute element printed by address, waiting for its target's next print.
    struct Pending {
        std::size_t index = 0, element = 0; ///< the call and its position in backend["elements"]
        std::string type, address;
        nlohmann::ordered_json before; ///< the target's content as that call printed it
    };
    struct Descriptor {
        std::string id, type;
        nlohmann::ordered_json content; ///< last printed fields; null when never printed
        bool finalized = false, live = true, touched = false;
        std::vector<std::string> addresses; ///< the addresses elements printed for it
        std::vector<Pending> pending;       ///< elements it was set to, not yet resolved
    };
    /// Resolves `d`'s pending elements from its new printed `content`.
    void resolve_pending(Descriptor &d, const nlohmann::ordered_json &content);
    Descriptor *by_id(const std::string &id);
    using Found = std::pair<Descriptor *, const char *>;
    /// The descriptor a Set or Finalize of a printed `type` fills.
    Found target_for_set(const std::string &type, const nlohmann::ordered_json &content);
    /// The descriptor a Get, Destroy, Execute or a descriptor element refers to.
    Found target_by_content(const std::string &type, const nlohmann::ordered_json &content);
    nlohmann::ordered_json link_of(const Found &found, const std::string &type) const;
    /// Links an argument printed as a descriptor (`{type, fields}` or `{type, value}`) and
    /// records its content; "" type when `arg` is no descriptor.
    nlohmann::ordered_json link_descriptor(const nlohmann::ordered_json &arg, bool for_set);

    std::vector<Descriptor> all_; ///< every descriptor made, in creation order
    std::size_t next_id_ = 0;
    std::vector<Patch> patches_;
};

} // namespace dnncompat::trace
