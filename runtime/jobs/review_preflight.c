#include "runtime/jobs/review_preflight.h"

#include "runtime/confine/libmnt.h"
#include "runtime/container/egress_wire.h"
#include "writeback/git/git2.h"

int review_preflight(const struct rr_config *cfg, struct rr_error *err)
{
    if (rr_libmnt_load(err) < 0 || wb_git2_load(err) < 0 || egress_wire_load_tls(cfg, err) < 0)
        return rr_wrap(err, "the agent was not started");
    return 0;
}
