// SPDX-License-Identifier: GPL-2.0-only
/* test_shard.c: which VMs run which tests (run/shard.c), without QEMU: the init's modulo
 * shards, balancing with and without earlier durations, disruptive tests in VMs of their own,
 * --filter, and the durations file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "run.h"
#include "shard.h"

struct fixture {
	struct run_opts o;
	struct run r;
	struct run_target t;
};

/* A run over tests named names[0..n) (those in disruptive[] flagged so), -j jobs. */
static void setup(struct fixture *f, const char *const *names, size_t n, unsigned jobs,
		  const char *disruptive)
{
	run_opts_init(&f->o);
	f->t = (struct run_target){"bzImage", NULL};
	run_init(&f->r, &f->o, &f->t, NULL);
	f->r.dir = strdup(test_tmpdir());
	f->r.jobs = jobs;
	for (size_t i = 0; i < n; i++) {
		struct plan_test *t = plan_add(&f->r.plan, names[i], "/tests/x");

		if (disruptive && strstr(disruptive, names[i]))
			t->flags |= PLAN_FLAG_DISRUPTIVE;
	}
}

static void teardown(struct fixture *f)
{
	run_release(&f->r);
	run_opts_release(&f->o);
}

/* "0,2,4" for a VM's plan indices. */
static const char *tests_of(const struct vm *vm)
{
	static char buf[256];
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < vm->ntests; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%zu", i ? "," : "",
					vm->tests[i]);
	return buf;
}

static const char *const five[] = {"a", "b", "c", "d", "e"};

static void t_modulo_without_durations(void)
{
	struct fixture f;
	struct durations d;

	setup(&f, five, 5, 2, NULL);
	durations_load(&d, "/nonexistent/durations-x86_64");
	check_int(d.names.n, ==, 0);
	shard_plan_vms(&f.r, &d);
	check_int(f.r.nvms, ==, 2);
	check_str(tests_of(&f.r.vms[0]), "0,2,4");
	check_str(tests_of(&f.r.vms[1]), "1,3");
	check_str(f.r.vms[0].select_args, "tapboot.shard=0/2");
	check_str(f.r.vms[1].select_args, "tapboot.shard=1/2");
	check(strstr(f.r.vms[1].console_path, "/console.2.log") != NULL);
	/* no estimates: no VM is put behind another */
	check(!f.r.vms[0].background && !f.r.vms[1].background);
	durations_release(&d);
	teardown(&f);
}

static void t_one_vm(void)
{
	struct fixture f;

	setup(&f, five, 5, 1, NULL);
	shard_plan_vms(&f.r, NULL);
	check_int(f.r.nvms, ==, 1);
	check_str(tests_of(&f.r.vms[0]), "0,1,2,3,4");
	check_str(f.r.vms[0].select_args, "");
	check(strstr(f.r.vms[0].console_path, "/console.log") != NULL);
	teardown(&f);
	/* more VMs than tests: one VM per test, no empty VM */
	setup(&f, five, 2, 8, NULL);
	shard_plan_vms(&f.r, NULL);
	check_int(f.r.nvms, ==, 2);
	teardown(&f);
}

static void t_balanced_with_durations(void)
{
	static const char *const names[] = {"long", "short1", "short2", "mid"};
	const char *file = test_write_file("durations-bal",
					   "10.000\tlong\n1.000\tshort1\n1.000\tshort2\n"
					   "8.000\tmid\nbad line\n-3\tneg\n",
					   strlen("10.000\tlong\n1.000\tshort1\n1.000\tshort2\n"
						  "8.000\tmid\nbad line\n-3\tneg\n"),
					   0);
	struct fixture f;
	struct durations d;

	durations_load(&d, file);
	check_int(d.names.n, ==, 4);
	setup(&f, names, 4, 2, NULL);
	shard_plan_vms(&f.r, &d);
	/* longest first onto the least loaded: long | mid, short1, short2 (10 against 10) */
	check_int(f.r.nvms, ==, 2);
	check_str(tests_of(&f.r.vms[0]), "0");
	check_str(tests_of(&f.r.vms[1]), "1,2,3");
	check_str(f.r.vms[0].select_args, "tapboot.only=1");
	check_str(f.r.vms[1].select_args, "tapboot.only=2-4");
	/* a tie: the first of the longest VMs runs at full priority, the others niced */
	check(!f.r.vms[0].background && f.r.vms[1].background);
	teardown(&f);
	/* three VMs: long | mid | short1, short2: only the one with "long" is not niced */
	setup(&f, names, 4, 3, NULL);
	shard_plan_vms(&f.r, &d);
	check_int(f.r.nvms, ==, 3);
	for (size_t v = 0; v < f.r.nvms && v < 3; v++)
		check(f.r.vms[v].background == !!strcmp(tests_of(&f.r.vms[v]), "0"));
	teardown(&f);
	durations_release(&d);
}

static void t_too_few_known_durations(void)
{
	const char *file = test_write_file("durations-few", "30.000\ta\n", 10, 0);
	struct fixture f;
	struct durations d;

	/* one of five known: fewer than half, so the init's modulo shards stay */
	durations_load(&d, file);
	setup(&f, five, 5, 2, NULL);
	shard_plan_vms(&f.r, &d);
	check_str(tests_of(&f.r.vms[0]), "0,2,4");
	check_str(f.r.vms[0].select_args, "tapboot.shard=0/2");
	check(!f.r.vms[0].background && !f.r.vms[1].background);
	teardown(&f);
	durations_release(&d);
}

static void t_disruptive_own_vms(void)
{
	struct fixture f;

	setup(&f, five, 5, 2, "b d");
	f.o.disruptive = true;
	shard_plan_vms(&f.r, NULL);
	/* two shards over a, c, e and one VM for each disruptive test */
	check_int(f.r.nvms, ==, 4);
	check_str(tests_of(&f.r.vms[0]), "0,4");
	check_str(tests_of(&f.r.vms[1]), "2");
	check_str(f.r.vms[0].select_args, "tapboot.shard=0/2 tapboot.disruptive=elsewhere");
	check_str(tests_of(&f.r.vms[2]), "1");
	check_str(f.r.vms[2].select_args, "tapboot.only=2 tapboot.disruptive=1");
	check_str(tests_of(&f.r.vms[3]), "3");
	check_str(f.r.vms[3].select_args, "tapboot.only=4 tapboot.disruptive=1");
	teardown(&f);

	/* without --disruptive the flag changes nothing: the init leaves them out itself */
	setup(&f, five, 5, 2, "b d");
	shard_plan_vms(&f.r, NULL);
	check_int(f.r.nvms, ==, 2);
	check_str(tests_of(&f.r.vms[1]), "1,3");
	teardown(&f);

	/* only disruptive tests: no shard VM at all */
	setup(&f, five, 2, 1, "a b");
	f.o.disruptive = true;
	shard_plan_vms(&f.r, NULL);
	check_int(f.r.nvms, ==, 2);
	check_str(f.r.vms[0].select_args, "tapboot.only=1 tapboot.disruptive=1");
	teardown(&f);
}

static void t_filter(void)
{
	static const char *const names[] = {"net/a", "fs/b", "net/c"};
	struct fixture f;
	size_t n, *sel;

	setup(&f, names, 3, 1, NULL);
	strlist_push(&f.o.filters, "net/*");
	sel = shard_filter(&f.r, &n);
	check_int(n, ==, 2);
	check_int(sel[0], ==, 0);
	check_int(sel[1], ==, 2);
	free(sel);
	shard_plan_vms(&f.r, NULL);
	check_str(tests_of(&f.r.vms[0]), "0,2");
	teardown(&f);
}

static void t_durations_save(void)
{
	char *path = malloc(strlen(test_tmpdir()) + 32);
	char na[] = "a", nb[] = "b", nc[] = "c", nd[] = "d";
	struct tap_test t[4] = {
		{.name = na, .verdict = VERDICT_PASS, .duration_s = 2.5},
		{.name = nb, .verdict = VERDICT_CRASH, .duration_s = 9},
		{.name = nc, .verdict = VERDICT_MISSING, .duration_s = -1},
		{.name = nd, .verdict = VERDICT_FAIL, .duration_s = 0.25},
	};
	struct durations d;
	char *text;
	size_t len;

	sprintf(path, "%s/durations-save", test_tmpdir());
	durations_save(path, t, 4);
	text = test_read_file(path, &len);
	/* crashed and missing tests say nothing about how long a test takes */
	check_str(text, "2.500\ta\n0.250\td\n");
	free(text);
	t[0].duration_s = 3;
	durations_save(path, t, 1);
	durations_load(&d, path);
	check_int(d.names.n, ==, 2);
	check(durations_find(&d, "a") && *durations_find(&d, "a") == 3.0);
	check(durations_find(&d, "d") && *durations_find(&d, "d") == 0.25);
	check(!durations_find(&d, "b"));
	durations_release(&d);
	free(path);
}

static void t_isolate(void)
{
	struct fixture f;

	setup(&f, five, 5, 2, "c");
	f.o.isolate = true;
	f.o.disruptive = true;
	shard_plan_vms(&f.r, NULL);
	check_int(f.r.nvms, ==, 5);
	for (size_t v = 0; v < f.r.nvms && v < 5; v++) {
		char want[8];

		snprintf(want, sizeof(want), "%zu", v);
		check_str(tests_of(&f.r.vms[v]), want);
	}
	check_str(f.r.vms[0].select_args, "tapboot.only=1");
	check_str(f.r.vms[2].select_args, "tapboot.only=3 tapboot.disruptive=1");
	check(strstr(f.r.vms[4].console_path, "/console.5.log") != NULL);
	for (size_t v = 0; v < f.r.nvms; v++)
		check(!f.r.vms[v].background);
	teardown(&f);

	/* without --disruptive a disruptive test is in its VM, and skipped there as always */
	setup(&f, five, 2, 4, "b");
	f.o.isolate = true;
	shard_plan_vms(&f.r, NULL);
	check_int(f.r.nvms, ==, 2);
	check_str(f.r.vms[1].select_args, "tapboot.only=2");
	teardown(&f);
}

/* --isolate with durations: the VMs start longest first (the pool takes them in order), the
 * unknown ones as the mean of the known, ties in the plan's order */
static void t_isolate_longest_first(void)
{
	static const char *const names[] = {"quick", "unknown", "slow", "mid", "quick2"};
	const char *text = "0.500\tquick\n12.000\tslow\n3.000\tmid\n0.500\tquick2\n";
	const char *file = test_write_file("durations-iso", text, strlen(text), 0);
	static const char *const want[] = {"2", "1", "3", "0", "4"};
	struct fixture f;
	struct durations d;

	durations_load(&d, file);
	setup(&f, names, 5, 3, NULL);
	f.o.isolate = true;
	shard_plan_vms(&f.r, &d);
	check_int(f.r.nvms, ==, 5);
	/* mean of the known: 4.0, so "unknown" comes after slow (12) and before mid (3) */
	for (size_t v = 0; v < f.r.nvms && v < 5; v++)
		check_str(tests_of(&f.r.vms[v]), want[v]);
	check_str(f.r.vms[0].select_args, "tapboot.only=3");
	check(strstr(f.r.vms[0].console_path, "/console.1.log") != NULL);
	/* the longest known VM at full priority, the others niced */
	check(!f.r.vms[0].background);
	for (size_t v = 1; v < f.r.nvms; v++)
		check(f.r.vms[v].background);
	teardown(&f);
	durations_release(&d);
}

int main(void)
{
	TEST(t_modulo_without_durations, "no durations: the init's modulo shards");
	TEST(t_one_vm, "-j 1: one VM, one console.log; never more VMs than tests");
	TEST(t_balanced_with_durations, "durations: longest first onto the least loaded VM");
	TEST(t_too_few_known_durations, "fewer than half the durations known: modulo shards");
	TEST(t_disruptive_own_vms, "--disruptive: each disruptive test in a VM of its own");
	TEST(t_filter, "--filter selects as the init does");
	TEST(t_isolate, "--isolate: every test in a VM of its own, disruptive ones run there");
	TEST(t_isolate_longest_first, "--isolate with durations: the longest known VM first");
	TEST(t_durations_save, "durations file: crash and missing left out, others kept");
	return test_done();
}
