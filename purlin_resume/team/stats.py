"""The seed's resurrection metrics over the team's ``resurrection_log``, computed in SQL (on the
local index or on the team server): the same figures ``resurrection.log.stats`` gives for one
log, without pulling every row out of the database."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

Query = Callable[[str, Sequence[Any]], list[tuple]]

AGENT = "COALESCE(NULLIF(resurrected_from_agent_id, ''), resurrected_from_session_id)"
KIND = "COALESCE(NULLIF(resurrected_from_agent_type, ''), 'unknown')"


def figures(query: Query, mysql: bool) -> dict[str, Any]:
    # as ``log._cross_repo``: a failure that chose no agent (no project of its own) is not one
    differs = (
        "resurrected_from_project IS NOT NULL AND resurrected_in_project IS NOT NULL "
        "AND resurrected_from_project <> resurrected_in_project"
    )
    total, cross = query(
        f"SELECT COUNT(*), COALESCE(SUM(CASE WHEN {differs} THEN 1 ELSE 0 END), 0) "
        "FROM resurrection_log",
        (),
    )[0]
    total, cross = int(total), int(cross)
    agents = query(
        f"SELECT {AGENT} AS a, COUNT(*) AS n FROM resurrection_log "
        "WHERE outcome IS NULL OR outcome <> 'failure' "
        f"GROUP BY {AGENT} ORDER BY n DESC, MIN(resurrected_at) LIMIT 10",
        (),
    )
    modes = query(
        "SELECT resurrection_mode, SUM(CASE WHEN outcome = 'success' THEN 1 ELSE 0 END), "
        "COUNT(*) FROM resurrection_log GROUP BY resurrection_mode",
        (),
    )
    sizes = query(
        f"SELECT {KIND}, SUM(context_size_tokens), COUNT(*) FROM resurrection_log "
        f"WHERE context_size_tokens IS NOT NULL GROUP BY {KIND}",
        (),
    )
    failures = query(
        "SELECT outcome_reason, COUNT(*) AS n FROM resurrection_log "
        "WHERE outcome_reason IS NOT NULL AND outcome_reason <> '' "
        "AND outcome = 'failure' "
        "GROUP BY outcome_reason ORDER BY n DESC, MIN(resurrected_at) LIMIT 5",
        (),
    )
    return {
        "total": total,
        "top_agents": [{"agent": a, "resurrections": int(n)} for a, n in agents],
        "success_rate_by_mode": {
            str(mode): {"success": int(ok), "total": int(n), "rate": round(int(ok) / int(n), 3)}
            for mode, ok, n in sorted(modes, key=lambda r: str(r[0]))
        },
        "average_context_tokens_by_agent_type": {
            kind: round(int(summed) / int(n)) for kind, summed, n in sorted(sizes)
        },
        "cross_repo": {
            "cross": cross,
            "same": total - cross,
            "ratio": round(cross / total, 3) if total else None,
        },
        "latency_ms": _percentiles(query),
        "top_failure_reasons": [{"reason": r, "count": int(n)} for r, n in failures],
    }


def _percentiles(query: Query) -> dict[str, Any]:
    """Nearest-rank p50, p95, p99: one count, then one row each."""
    count = int(
        query("SELECT COUNT(*) FROM resurrection_log WHERE latency_ms IS NOT NULL", ())[0][0]
    )
    found: dict[str, Any] = {}
    for name, share in (("p50", 0.50), ("p95", 0.95), ("p99", 0.99)):
        if not count:
            found[name] = None
            continue
        rank = max(0, math.ceil(share * count) - 1)
        found[name] = query(
            "SELECT latency_ms FROM resurrection_log WHERE latency_ms IS NOT NULL "
            f"ORDER BY latency_ms LIMIT 1 OFFSET {rank}",
            (),
        )[0][0]
    return found
