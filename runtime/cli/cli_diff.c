/* revrun diff [--json|--patch|--mbox [--author "N <e>"]] [--deny-content FILE]
 *             (ID | DIR | --lower DIR --upper DIR --format F)
 * DIR: an exported set (or a review's --out holding one).
 * Exit (common/exitcode.h): 0 accepted (or nothing changed), 5 refused, 1 an
 * error, 2 a bad command line. */
#include <getopt.h>
#include <stdio.h>

#include "runtime/cli/cli_wb.h"
#include "runtime/jobs/changeset_dir.h"
#include "runtime/container/log.h"
#include "runtime/jobs/mail_job.h"
#include "writeback/patch/patch.h"
#include "writeback/changeset/report.h"

/* OUT_MBOX past changeset_dir's views: a live set only */
enum { OUT_TEXT = CHANGESET_TEXT, OUT_JSON = CHANGESET_JSON, OUT_PATCH = CHANGESET_PATCH, OUT_MBOX = 100 };

static int print(const struct wb_job *run, int mode, const char *author)
{
    const struct wb_changeset *cs = &run->scan.cs;
    struct rr_error err;
    int r;

    if ((mode == OUT_PATCH || mode == OUT_MBOX) && wb_changeset_refused(cs)) {
        wb_job_print_refusal(cs);
        return WB_JOB_REFUSED;
    }
    if (mode == OUT_MBOX)
        return wb_job_mail_live(&run->scan, author);
    if (mode == OUT_PATCH)
        r = wb_patch_write(stdout, &run->scan, &err);
    else if (mode == OUT_JSON)
        r = wb_report_json(stdout, cs, &err);
    else
        r = wb_report_text(stdout, cs, &err);
    if (r < 0 || fflush(stdout) != 0) {
        if (r == 0)
            rr_fail(&err, 0, "writing the output");
        rr_wrap(&err, "diff");
        log_error(&err);
        return WB_JOB_ERROR;
    }
    return wb_changeset_refused(cs) ? WB_JOB_REFUSED : WB_JOB_ACCEPT;
}

int cli_diff(struct rr_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"patch", no_argument, NULL, 'p'},
        {"mbox", no_argument, NULL, 'm'},
        {"author", required_argument, NULL, 'A'},
        CLI_WB_SOURCE_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    struct wb_job_source o = {0};
    struct wb_job run;
    const char *id, *author = NULL;
    int c, mode = OUT_TEXT, r;
    bool bad;

    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'j' || c == 'p' || c == 'm') {
            mode = c == 'j' ? OUT_JSON : c == 'p' ? OUT_PATCH : OUT_MBOX;
        } else if (c == 'A') {
            author = optarg;
        } else if (!cli_wb_option(&o, c, optarg)) {
            cli_wb_usage(argv[0], "unknown option");
            return WB_JOB_USAGE;
        }
    }
    id = cli_wb_source_operand(argv[0], &o, argc, argv, &optind, &bad);
    if (bad || optind != argc) {
        if (!bad)
            cli_wb_usage(argv[0], "unexpected operand");
        return WB_JOB_USAGE;
    }
    if (id != NULL && o.deny == NULL && changeset_dir_named(id))
        return mode == OUT_MBOX ? wb_job_mail_export(id, author, &(struct wb_subset_spec){0})
                                : changeset_dir_diff(id, (enum changeset_view)mode);
    if ((r = wb_job_vet(ctx, argv[0], &o, id, &run)) == 0)
        r = print(&run, mode, author);
    wb_job_release(&run);
    return r;
}
