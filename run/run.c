// SPDX-License-Identifier: GPL-2.0-only
/* run.c: a run's life: its options and its state made and released (run.h); the steps between
 * are prepare.c's run_prepare, boot.c's run_boot and finish.c's run_finish. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm.h"

void run_opts_init(struct run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->timeout_s = PLAN_DEFAULT_TIMEOUT;
	builder_opts_init(&o->image);
	o->boot_s = 120;
	strlist_init(&o->filters);
	strlist_init(&o->ks_targets);
	strlist_init(&o->ks_skip_targets);
	strlist_init(&o->ks_tests);
	strlist_init(&o->expect_skip);
}

void run_opts_release(struct run_opts *o)
{
	free(o->targets);
	strlist_release(&o->filters);
	builder_opts_release(&o->image);
	strlist_release(&o->ks_targets);
	strlist_release(&o->ks_skip_targets);
	strlist_release(&o->ks_tests);
	strlist_release(&o->expect_skip);
}

void run_init(struct run *r, const struct run_opts *o, const struct run_target *t,
	      const char *out_dir)
{
	memset(r, 0, sizeof(*r));
	r->o = o;
	r->kernel = t->kernel;
	r->arch = t->arch;
	r->out_dir = out_dir;
	strlist_init(&r->inputs);
	arch_config_init(&r->cfg);
	plan_init(&r->plan);
	r->start = now_s();
	r->tty = isatty(2);
}

void run_release(struct run *r)
{
	for (size_t v = 0; v < r->nvms; v++)
		vm_release(&r->vms[v]);
	free(r->vms);
	arch_config_release(&r->cfg);
	snapshot_release(&r->snap);
	plan_release(&r->plan);
	strlist_release(&r->inputs);
	free(r->kernel_image);
	free(r->kernel_config);
	free(r->boot_kernel);
	free(r->dir);
	free(r->initrd);
	free(r->tests_image);
	if (r->saver_initrd)
		unlink(r->saver_initrd); /* the saver ended before its ready point */
	free(r->saver_initrd);
	free(r->accel_note);
	if (r->reserve)
		unlink(r->reserve); /* a run that ended before its finish */
	free(r->reserve);
	free(r->write_error);
}
