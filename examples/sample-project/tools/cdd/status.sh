#!/bin/sh
# Stand-in for a project's status command: regenerates the Critic report and prints feature status.
cat > CRITIC_REPORT.md <<'REPORT'
# Critic Report

## Action Items by Role

### Architect
- [HIGH] Add the missing scenario to features/cdd_spec_map.md

### Builder
- [HIGH] Implement features/cdd_spec_map.md
- [NORMAL] Implement features/cdd_isolated_teams.md

### QA
- [NORMAL] Verify features/cdd_status_monitor.md
REPORT
echo '{"features": [{"file": "features/cdd_status_monitor.md", "status": "TESTING"}, {"file": "features/cdd_spec_map.md", "status": "TODO"}, {"file": "features/cdd_isolated_teams.md", "status": "TODO"}]}'
