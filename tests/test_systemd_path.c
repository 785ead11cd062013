/* runtime/confine/cgroup_freeze.c: --systemd-cgroup's slice:prefix:name
 * as the cgroupfs path systemd would use. */
#include <stdio.h>
#include <string.h>

#include "runtime/confine/cgroup_freeze.h"
#include "tests/tap.h"

static struct rr_error err;

static int path(const char *spec, char *out)
{
    return cgroup_systemd_path(spec, out, 512, &err);
}

TEST(systemd_slices_nest_as_systemd_nests_them)
{
    char out[512];

    CHECK(path("machine.slice:libpod:abc", out) == 0 &&
          strcmp(out, "/machine.slice/libpod-abc.scope") == 0);
    CHECK(path("kubepods-besteffort-pod1.slice:cri-containerd:c1", out) == 0 &&
          strcmp(out, "/kubepods.slice/kubepods-besteffort.slice/"
                      "kubepods-besteffort-pod1.slice/cri-containerd-c1.scope") == 0);
    CHECK(path(":docker:x", out) == 0 && strcmp(out, "/system.slice/docker-x.scope") == 0);
    CHECK(path("user.slice::x", out) == 0 && strcmp(out, "/user.slice/x.scope") == 0);
}

TEST(systemd_paths_that_are_not_slice_prefix_name_are_refused)
{
    char out[512];
    static const char *const bad[] = {"/abs/path", "a:b", "a.slice:b:", "notaslice:p:n",
                                      "a--b.slice:p:n", "a.slice:p:n:x", "../x.slice:p:n",
                                      "-a.slice:p:n"};

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(path(bad[i], out) < 0 && strstr(err.msg, "cgroupsPath") != NULL);
}
