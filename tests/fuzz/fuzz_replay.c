/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * main() for a fuzz target built without libFuzzer (make -C tests/fuzz
 * replay): runs every file of the corpus and reproducer directories through
 * LLVMFuzzerTestOneInput, each in a child process so one that aborts (a
 * broken invariant, a sanitizer report) is named and the rest still run,
 * and prints one TAP line for the target.
 *
 *   fuzz_rx CORPUS_DIR [REPRO_DIR]   replay
 *   fuzz_rx --make-seeds DIR         write the generated seed corpus
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fuzz_common.h"

#define MAX_INPUT (1u << 20)

static const char *seed_dir;
static unsigned int seeds_written;

static void emit(const char *name, const struct fzw *w)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%03u-%s", seed_dir, seeds_written++,
             name);
    f = fopen(path, "wb");
    if (!f || fwrite(w->b, 1, w->n, f) != w->n || fclose(f)) {
        fprintf(stderr, "%s: cannot write %s\n", fuzz_target_name, path);
        exit(1);
    }
}

/* Every regular file of dir whose name does not start with a dot. */
static int list_dir(const char *dir, char ***names)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int n = 0, cap = 0;

    *names = NULL;
    if (!d) {
        return errno == ENOENT ? 0 : -1;
    }
    while ((de = readdir(d))) {
        char path[4096];
        struct stat st;

        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        if (de->d_name[0] == '.' || stat(path, &st) || !S_ISREG(st.st_mode)) {
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            *names = realloc(*names, (size_t)cap * sizeof(**names));
        }
        (*names)[n++] = strdup(path);
    }
    closedir(d);
    return n;
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int make_seeds(const char *dir)
{
    char **old;
    int i, n;

    mkdir(dir, 0777);             /* its parent must exist */
    n = list_dir(dir, &old);
    for (i = 0; i < n; i++) {
        unlink(old[i]);             /* the corpus is generated as a whole */
        free(old[i]);
    }
    free(old);
    seed_dir = dir;
    fuzz_make_seeds(emit);
    printf("%s: %u seeds written to %s\n", fuzz_target_name, seeds_written,
           dir);
    return 0;
}

/* Run one input in a child; 0 if it returned normally. */
static int run_one(const char *path)
{
    static uint8_t buf[MAX_INPUT];
    size_t len;
    pid_t pid;
    FILE *f;
    int st;

    f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "# %s: cannot read\n", path);
        return -1;
    }
    len = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        return -1;
    }
    if (!pid) {
        LLVMFuzzerTestOneInput(buf, len);
        exit(0);                    /* exit(), so coverage data is written */
    }
    if (waitpid(pid, &st, 0) != pid) {
        return -1;
    }
    if (WIFSIGNALED(st)) {
        fprintf(stderr, "# %s: killed by signal %d\n", path, WTERMSIG(st));
        return -1;
    }
    if (WEXITSTATUS(st)) {
        fprintf(stderr, "# %s: exit status %d\n", path, WEXITSTATUS(st));
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int count[2] = { 0, 0 }, failed = 0, d, i;
    char first[4096] = "";

    if (argc == 3 && !strcmp(argv[1], "--make-seeds")) {
        return make_seeds(argv[2]);
    }
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s CORPUS_DIR [REPRO_DIR]\n"
                "       %s --make-seeds DIR\n", argv[0], argv[0]);
        return 2;
    }
    for (d = 0; d + 1 < argc; d++) {
        char **names;
        int n = list_dir(argv[d + 1], &names);

        if (n < 0) {
            printf("not ok - %s: cannot read %s\n", fuzz_target_name,
                   argv[d + 1]);
            return 1;
        }
        if (n) {
            qsort(names, (size_t)n, sizeof(*names), cmp);
        }
        for (i = 0; i < n; i++) {
            if (run_one(names[i]) && !failed++) {
                snprintf(first, sizeof(first), "%s", names[i]);
            }
            free(names[i]);
        }
        free(names);
        count[d] = n;
    }
    if (failed) {
        printf("not ok - %s: %d of %d inputs failed (first: %s)\n",
               fuzz_target_name, failed, count[0] + count[1], first);
        return 1;
    }
    if (!count[0]) {
        printf("not ok - %s: no corpus in %s\n", fuzz_target_name, argv[1]);
        return 1;
    }
    printf("ok - %s: %d corpus inputs and %d reproducers replayed, "
           "invariants held\n", fuzz_target_name, count[0], count[1]);
    return 0;
}
