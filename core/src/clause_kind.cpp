#include "hcts/core/clause_kind.h"

namespace hcts {

std::optional<ClauseKind> parse_clause_kind(std::string_view name)
{
    for (const ClauseKind k : {ClauseKind::Must, ClauseKind::Profile, ClauseKind::Strict})
        if (clause_kind_name(k) == name)
            return k;
    return std::nullopt;
}

std::optional<GateMode> parse_gate_mode(std::string_view name)
{
    for (const GateMode m : {GateMode::Default, GateMode::Strict})
        if (gate_mode_name(m) == name)
            return m;
    return std::nullopt;
}

bool gates_on(std::string_view kind, GateMode mode, bool unknown_gates)
{
    const auto k = parse_clause_kind(kind);
    return k ? gates_on(*k, mode) : unknown_gates;
}

bool item_gates(bool fail_with_failed_clause, std::string_view failed_kind, bool only_strict_clauses, GateMode mode)
{
    if (fail_with_failed_clause)
        return gates_on(failed_kind, mode, /*unknown_gates=*/true);
    return mode == GateMode::Strict || !only_strict_clauses;
}

} // namespace hcts
