/* revrun check: the egress settings of the bundle's config, judged without
 * contacting anything (the credential is not read here either). */
#include <stdio.h>
#include <unistd.h>

#include "egress/egress.h"
#include "runtime/check/check.h"

void check_egress(struct check_report *r)
{
    const struct profile *p = r->profile;
    const struct rr_egress *eg;
    struct rr_error err;

    if (p == NULL || p->egress == NULL) {
        check_add(r, CHECK_INFO, false, "egress", NULL, "%s",
                  p != NULL && p->net_host ? "the host network is shared (explicit widening)"
                                           : "loopback only, no broker");
        return;
    }
    eg = p->egress;
    if (egress_config_validate(eg, p->net_host ? RR_NET_HOST : RR_NET_NONE, &err) < 0) {
        check_add(r, CHECK_FAIL, true, "egress", "fix revrun.egress in config.json", "%s",
                  err.msg);
        return;
    }
    if (eg->credential_file != NULL && access(eg->credential_file, R_OK) < 0) {
        check_add(r, CHECK_FAIL, true, "egress",
                  "the credential file must exist and be readable by whoever runs revrun",
                  "credential file %s is not readable", eg->credential_file);
        return;
    }
    check_add(r, CHECK_OK, true, "egress", NULL, "broker to %s, relay at 127.0.0.1:%u%s%s",
              eg->upstream, (unsigned)p->egress_port, eg->base_url_env.n ? ", " : "",
              eg->base_url_env.n ? eg->base_url_env.v[0] : "");
}
