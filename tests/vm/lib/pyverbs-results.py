#!/usr/bin/env python3
"""Results of rdma-core's own test suite, for tests/vm/pyverbs.sh (in a guest).

  pyverbs-results.py parse DIR MODULE
      reads DIR/MODULE.out (output of `run_tests.py -v MODULE`), DIR/MODULE.rc
      ("STATUS SECONDS TIMEOUT" of that process) and DIR/tests.list (the
      suite's --list-tests output, may be empty), writes DIR/MODULE.res, one
      line per test: "passed|failed|error|skipped<TAB>TEST_ID<TAB>DETAIL",
      and prints "MODULE P F E S T HOW" (HOW: exit-N, signal-N or timeout).
      A listed test with no result (the process died or timed out first)
      counts as an error.

  pyverbs-results.py compare DIR NAME DIR2 NAME2
      prints both totals, a line per module with both counts and the tests
      that pass in DIR2 (the reference) but not in DIR; "ok - ..." or
      "not ok - ..." for "every test passing on NAME2 passes on NAME".

  pyverbs-results.py require DIR NAME REGEX WHAT
      "ok - ..." if every test whose id matches REGEX (case-insensitive)
      passed in DIR, "not ok - ..." naming those that did not; a comment
      only if none of the modules run has such a test.  For what the
      device must pass whatever the reference does (XRC: rxe has none).
"""
import os
import re
import signal
import sys

KINDS = ('passed', 'failed', 'error', 'skipped')
# Worst outcome wins when a test reports more than once (subtests, or a
# FAIL/ERROR header in the summary after "ok" in the stream: tearDown).
RANK = {'passed': 0, 'skipped': 1, 'failed': 2, 'error': 3}

# "test_x (tests.test_mod.Class.test_x)" (3.11+) or "(tests.test_mod.Class)",
# possibly indented (subtests), possibly followed by "[params]" or " ... ".
START = re.compile(r'^\s*(test\w*) \((tests\.[\w.]+)\)')
RESULT = re.compile(r'(?:^|\.\.\. )(ok|FAIL|ERROR|expected failure|unexpected success'
                    r'|skipped(?: (.*))?)\s*$')
HEADER = re.compile(r'^(FAIL|ERROR): (\w+) \(([\w.]+)\)')


def test_id(name, paren):
    return paren if paren.endswith('.' + name) else paren + '.' + name


def read(path):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        return ''


def how_ended(rcfile):
    """(HOW, text) for the module's process."""
    try:
        st, secs, tmo = (int(x) for x in read(rcfile).split()[:3])
    except ValueError:
        return 'unknown', 'no exit status'
    if st == 124 or (st == 128 + 9 and secs >= tmo):
        return 'timeout', 'timed out after %d s' % tmo
    if st > 128:
        n = st - 128
        try:
            nm = signal.Signals(n).name
        except ValueError:
            nm = 'signal %d' % n
        return 'signal-%d' % n, 'python died by %s' % nm
    return 'exit-%d' % st, 'exit status %d' % st


def parse(d, mod):
    out = read(os.path.join(d, mod + '.out')).splitlines()
    how, howtext = how_ended(os.path.join(d, mod + '.rc'))
    listed = [t for t in read(os.path.join(d, 'tests.list')).split()
              if t.startswith('tests.%s.' % mod)]
    res = {}   # id -> (kind, detail)

    def put(tid, kind, detail=''):
        old = res.get(tid)
        if old is None or RANK[kind] > RANK[old[0]] or (RANK[kind] == RANK[old[0]] and detail and not old[1]):
            res[tid] = (kind, detail)

    # The -v stream: a test's start line, then its result after " ... " on
    # that line or a later one (a docstring line, or output the test wrote,
    # can come in between).
    cur = None
    summary_at = len(out)
    for i, line in enumerate(out):
        if line.startswith('=' * 20) or line.startswith('-' * 20):
            summary_at = i
            break
        m = START.match(line)
        if m:
            cur = test_id(m.group(1), m.group(2))
            line = line[m.end():]
        if cur is None:
            continue
        r = RESULT.search(line)
        if not r:
            continue
        word = r.group(1)
        if word in ('ok', 'expected failure'):
            put(cur, 'passed')
        elif word in ('FAIL', 'unexpected success'):
            put(cur, 'failed', word if word != 'FAIL' else '')
        elif word == 'ERROR':
            put(cur, 'error')
        else:
            reason = (r.group(2) or '').strip()
            if len(reason) >= 2 and reason[0] == reason[-1] and reason[0] in '\'"':
                reason = reason[1:-1]
            put(cur, 'skipped', reason)
        cur = None

    # The summary: "ERROR: test_x (id)" / "FAIL: ..." blocks, each with a
    # traceback whose last line says why; setUpClass/setUpModule errors stand
    # for every test of their class or module.
    prefix_errors = []
    i = summary_at
    while i < len(out):
        m = HEADER.match(out[i])
        if not m:
            i += 1
            continue
        kind = 'failed' if m.group(1) == 'FAIL' else 'error'
        name, paren = m.group(2), m.group(3)
        j = i + 1
        while j < len(out) and not out[j].startswith('-' * 20):
            j += 1
        j += 1
        last = ''
        while j < len(out) and not out[j].startswith('=' * 20) and not out[j].startswith('-' * 20):
            if out[j].strip() and not out[j].startswith(' '):
                last = out[j].strip()
            j += 1
        if name.startswith('setUp') or name.startswith('tearDown'):
            prefix_errors.append((paren + '.', '%s: %s' % (name, last)))
        else:
            put(test_id(name, paren), kind, last)
        i = j

    for tid in listed:
        if tid in res:
            continue
        for p, why in prefix_errors:
            if tid.startswith(p):
                put(tid, 'error', why)
                break
        else:
            put(tid, 'error', 'not run: ' + howtext if not how.startswith('exit-')
                else 'no result in the output (%s)' % howtext)

    with open(os.path.join(d, mod + '.res'), 'w') as f:
        for tid in sorted(res):
            kind, detail = res[tid]
            f.write('%s\t%s\t%s\n' % (kind, tid, detail.replace('\t', ' ')))
    c = counts(res)
    print(mod, *(c[k] for k in KINDS), sum(c.values()), how)


def counts(res):
    c = dict.fromkeys(KINDS, 0)
    for kind, _ in res.values():
        c[kind] += 1
    return c


def load(d):
    """{module: {id: (kind, detail)}} and {module: HOW} of one guest."""
    mods, hows = {}, {}
    for fn in sorted(os.listdir(d)):
        if not fn.endswith('.res'):
            continue
        mod = fn[:-4]
        r = {}
        for line in read(os.path.join(d, fn)).splitlines():
            p = line.split('\t', 2)
            if len(p) >= 2 and p[0] in KINDS:
                r[p[1]] = (p[0], p[2] if len(p) > 2 else '')
        mods[mod] = r
        hows[mod] = how_ended(os.path.join(d, mod + '.rc'))[0]
    return mods, hows


def total_line(name, mods):
    c = dict.fromkeys(KINDS, 0)
    for r in mods.values():
        for k, v in counts(r).items():
            c[k] += v
    return '%s: %d passed, %d failed, %d errors, %d skipped of %d' % (
        name, c['passed'], c['failed'], c['error'], c['skipped'], sum(c.values()))


def compare(d, name, d2, name2):
    a, ahow = load(d)
    b, bhow = load(d2)
    print('pyverbs: %s; %s' % (total_line(name, a), total_line(name2, b)))
    w = max([len(m) for m in list(a) + list(b)] + [6])
    print('pyverbs: %-*s  %-26s  %-26s' % (w, 'module', name + ' pass/fail/err/skip of N',
                                           name2 + ' pass/fail/err/skip of N'))

    def cell(r, how):
        if r is None:
            return '-'
        c = counts(r)
        s = '%d/%d/%d/%d of %d' % (c['passed'], c['failed'], c['error'], c['skipped'], len(r))
        if how and not how.startswith('exit-'):
            s += ' (%s)' % how
        return s
    for mod in sorted(set(a) | set(b)):
        print('pyverbs: %-*s  %-26s  %-26s' % (w, mod, cell(a.get(mod), ahow.get(mod)),
                                               cell(b.get(mod), bhow.get(mod))))
    only = []
    for mod in sorted(b):
        for tid, (kind, _) in sorted(b[mod].items()):
            if kind != 'passed':
                continue
            mine = a.get(mod, {}).get(tid, ('missing', 'not run'))
            if mine[0] != 'passed':
                only.append((tid, mine))
    print('pyverbs: %d tests pass on %s but not on %s%s' % (len(only), name2, name, ':' if only else ''))
    for tid, (kind, detail) in only:
        print('pyverbs:   %s  [%s: %s%s]' % (tid, name, kind, ': ' + detail if detail else ''))
    extra = [tid for mod in sorted(a) for tid, (kind, _) in sorted(a[mod].items())
             if kind == 'passed' and b.get(mod, {}).get(tid, ('',))[0] != 'passed']
    print('pyverbs: %d tests pass on %s but not on %s%s' % (len(extra), name, name2, ':' if extra else ''))
    for tid in extra:
        kind, detail = next(r[tid] for r in b.values() if tid in r) if any(tid in r for r in b.values()) \
            else ('missing', 'not run')
        print('pyverbs:   %s  [%s: %s%s]' % (tid, name2, kind, ': ' + detail if detail else ''))
    if only:
        print('not ok - pyverbs: %d tests pass on %s but not on %s' % (len(only), name2, name))
    else:
        print('ok - pyverbs: every test that passes on %s passes on %s' % (name2, name))
    return 0


def require(d, name, regex, what):
    a, _ = load(d)
    pat = re.compile(regex, re.I)
    hits = sorted((tid, res) for r in a.values() for tid, res in r.items()
                  if pat.search(tid))
    bad = [(tid, res) for tid, res in hits if res[0] != 'passed']
    if not hits:
        print('# pyverbs: no %s test among the modules run' % what)
    elif bad:
        print('not ok - pyverbs: %d of %d %s tests do not pass on %s:'
              % (len(bad), len(hits), what, name))
        for tid, (kind, detail) in bad:
            print('#   %s  [%s%s]' % (tid, kind, ': ' + detail if detail else ''))
    else:
        print('ok - pyverbs: all %d %s tests pass on %s' % (len(hits), what, name))
    return 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == 'parse':
        parse(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 6 and sys.argv[1] == 'require':
        require(*sys.argv[2:])
    elif len(sys.argv) == 6 and sys.argv[1] == 'compare':
        compare(*sys.argv[2:])
    else:
        sys.exit(__doc__)


main()
