/* pause: the pod sandbox's process for the CRI tests (integration/cri/),
 * in place of registry.k8s.io/pause, which CI cannot fetch. It holds the
 * pod's namespaces open, reaps the children a shared pid namespace hands
 * it, and exits 0 on SIGINT or SIGTERM, as the kubelet's pause does. */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

int main(void)
{
    sigset_t set;
    int sig;

    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGCHLD);
    if (sigprocmask(SIG_BLOCK, &set, NULL) < 0) {
        perror("pause: sigprocmask");
        return 1;
    }
    for (;;) {
        if (sigwait(&set, &sig) != 0)
            continue;
        if (sig != SIGCHLD)
            return 0;
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
    }
}
