#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the benchmark VM's console log into bench/results/.

    report.py CONSOLE_LOG RESULTS_DIR [--work DIR] [--commit C] [--host TEXT]

Reads the AIOBENCH-* records bench/guest.sh printed, writes
RESULTS_DIR/latest.json (every repetition and the medians),
RESULTS_DIR/latest.md (tables; each cell with its ratio to raw) and
RESULTS_DIR/iops.svg (gnuplot, when installed), and prints the target
checks and, last, the headline line.  Exit status 1 when the run is
incomplete (no AIOBENCH-END, failed points, missing headline data).
Standard library only.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

DRIVERS = ["raw", "aio", "sync", "loopdio", "loopbuf"]
DRIVER_DESC = {
    "raw": "fio on the backing file (direct=1, libaio)",
    "aio": "/dev/aioloop0, default (aio) mode",
    "sync": "/dev/aioloop0, sync mode (set-direct-io off)",
    "loopdio": "/dev/loop0, losetup --direct-io=on",
    "loopbuf": "/dev/loop0, default (buffered)",
}
BACKINGS = ["fast", "slow"]
HEADLINE = ("slow", "randread-4k-qd32-j1")

# (backing, workload, driver, versus, bound, metric): the ratio of the
# driver's median to the other's; IOPS must be at least the bound, CPU
# time per I/O (cpu_vm_us, the whole VM's) at most the bound
TARGETS = [
    (b, w, "aio", vs, need, "iops")
    for b in BACKINGS
    for w, vs, need in [
        ("randread-4k-qd32-j1", "loopdio", 1.10),
        ("randread-4k-qd32-j1", "raw", 0.95),
        ("randwrite-4k-qd32-j1", "loopdio", 1.10),
        ("randread-4k-qd32-j4", "loopdio", 1.5),
        ("randread-4k-qd32-j4", "raw", 0.95),
        ("randread-4k-qd1-j1", "loopdio", 5.0),
        ("randread-4k-qd1-j4", "loopdio", 5.0),
        ("seqread-1m-qd8-j1", "raw", 0.95),
        ("seqwrite-1m-qd8-j1", "raw", 0.95),
    ]
] + [
    ("slow", "randread-4k-qd32-j1", "aio", "sync", 8.0, "iops"),
    ("fast", "randread-4k-qd32-j1", "aio", "raw", 1.15, "cpu_vm_us"),
    ("fast", "randread-4k-qd32-j4", "aio", "raw", 1.15, "cpu_vm_us"),
]
# the 1-job points of the headline's onejob/loopdio: the lowest ratio
ONEJOB = [(b, w) for b in BACKINGS
          for w in ("randread-4k-qd32-j1", "randwrite-4k-qd32-j1")]

COUNTERS = ["aio_submitted", "aio_direct", "aio_handoff", "aio_inline",
            "aio_queued", "nowait_eagain", "sync_ios", "dio_retries",
            "aio_resubmits", "errors"]


def driver_desc(d):
    """What a driver name stands for; aio~name=value[~...] is a variant."""
    if d in DRIVER_DESC:
        return DRIVER_DESC[d]
    base, _, params = d.partition("~")
    return "%s with aioloop parameters %s" % (
        DRIVER_DESC.get(base, base), ", ".join(params.split("~")))


def parse_console(path):
    """The AIOBENCH records of a console log, in order."""
    recs = []
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode("utf-8", "replace").rstrip("\r\n").rstrip("\r")
            i = line.find("AIOBENCH-")
            if i < 0:
                continue
            line = line[i:]
            kind, _, rest = line.partition(" ")
            recs.append((kind[len("AIOBENCH-"):], rest))
    return recs


def point_metrics(p, hz, ncpu):
    """Metrics of one repetition of one point, or None if it failed."""
    fio = p.get("fio")
    if p.get("rc") != 0 or not fio or not fio.get("jobs"):
        return None
    job = fio["jobs"][0]
    if job.get("error"):
        return None
    d = job["write" if p["rw"].endswith("write") else "read"]
    ios = d.get("total_ios") or 0
    iops = d["iops"]
    if ios <= 0 or iops <= 0:
        return None
    pct = d.get("clat_ns", {}).get("percentile", {})
    m = {
        "iops": iops,
        "bw_mib": d["bw_bytes"] / 2**20,
        "p50_us": pct.get("50.000000", 0) / 1000.0,
        "p99_us": pct.get("99.000000", 0) / 1000.0,
        "usr_cpu": job["usr_cpu"],
        "sys_cpu": job["sys_cpu"],
        # context switches of the fio jobs per I/O
        "ctx_per_io": job.get("ctx", 0) / ios,
    }
    # fio reports usr/sys as the mean per-job percentage of the job's
    # runtime; job_runtime is the sum over the jobs (ms)
    job_ms = job.get("job_runtime") or d["runtime"] * p["numjobs"]
    cpu_s = (job["usr_cpu"] + job["sys_cpu"]) / 100.0 * job_ms / 1000.0
    m["cpu_fio_us"] = cpu_s / ios * 1e6
    # the whole VM (all CPUs, /proc/stat) over fio's run, ramp included
    s0, s1 = p["stat0"], p["stat1"]
    delta = [b - a for a, b in zip(s0, s1)]
    total = sum(delta[:8])
    idle = delta[3] + delta[4]
    wall = p["uptime1"] - p["uptime0"]
    if total > 0 and wall > 0:
        busy_cpus = (total - idle) / total * ncpu
        m["vm_busy_cpus"] = busy_cpus
        m["cpu_vm_us"] = busy_cpus / iops * 1e6
    c0, c1 = p.get("counters0") or {}, p.get("counters1") or {}
    if c1:
        m["counters"] = {k: c1.get(k, 0) - c0.get(k, 0) for k in COUNTERS}
    return m


def median(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def aggregate(reps):
    """Medians over the repetitions of a point."""
    ok = [r for r in reps if r]
    if not ok:
        return None
    out = {}
    for k in ["iops", "bw_mib", "p50_us", "p99_us", "cpu_fio_us",
              "cpu_vm_us", "vm_busy_cpus", "ctx_per_io"]:
        out[k] = median([r.get(k) for r in ok])
    iops = [r["iops"] for r in ok]
    out["iops_min"], out["iops_max"] = min(iops), max(iops)
    out["spread"] = (max(iops) - min(iops)) / out["iops"] if out["iops"] else 0
    if any("counters" in r for r in ok):
        out["counters"] = {k: median([r["counters"][k] for r in ok
                                      if "counters" in r])
                           for k in COUNTERS}
    out["reps"] = len(ok)
    return out


def fmt_num(v):
    if v is None:
        return "-"
    a = abs(v)
    if a >= 1e6:
        return "%.2fM" % (v / 1e6)
    if a >= 1e4:
        return "%.1fk" % (v / 1e3)
    if a >= 1e3:
        return "%.2fk" % (v / 1e3)
    if a >= 100:
        return "%.0f" % v
    if a >= 10:
        return "%.1f" % v
    return "%.2f" % v


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt_ratio(r):
    return "-" if r is None else "%.2f" % r


class Report:
    def __init__(self, recs):
        self.meta = {}
        self.module = {}
        self.backing_info = {}
        self.errors = []
        self.points = []
        # only the last boot's records count
        begins = [i for i, (k, _) in enumerate(recs) if k == "BEGIN"]
        self.begun = bool(begins)
        self.ended = False
        for kind, rest in recs[begins[-1] if begins else len(recs):]:
            if kind == "END":
                self.ended = True
            elif kind == "META":
                self.meta = json.loads(rest)
            elif kind == "MODULE":
                self.module = json.loads(rest)
            elif kind == "BACKING":
                b = json.loads(rest)
                self.backing_info[b["backing"]] = b
            elif kind == "ERROR":
                self.errors.append(rest)
            elif kind == "POINT":
                try:
                    self.points.append(json.loads(rest))
                except ValueError as e:
                    self.errors.append("unparsable point record (%s): %s"
                                       % (e, rest[:200]))
        hz = self.meta.get("hz", 100)
        ncpu = self.meta.get("ncpu", 1)
        self.workloads = []     # in run order
        self.cells = {}         # (backing, workload, driver) -> [metrics]
        self.desc = {}
        for p in self.points:
            key = (p["backing"], p["workload"], p["driver"])
            if p["workload"] not in self.workloads:
                self.workloads.append(p["workload"])
            self.desc[p["workload"]] = {k: p[k] for k in
                                        ("rw", "bs", "iodepth", "numjobs")}
            m = point_metrics(p, hz, ncpu)
            if m is not None:
                m["rep"] = p["rep"]
            self.cells.setdefault(key, []).append(m)
        self.failed_points = sum(1 for v in self.cells.values()
                                 for m in v if m is None)
        self.agg = {k: aggregate(v) for k, v in self.cells.items()}
        self.backings = [b for b in BACKINGS
                         if any(k[0] == b for k in self.cells)]
        self.drivers = [d for d in DRIVERS
                        if any(k[2] == d for k in self.cells)]
        # variants (aio~name=value), in the order they first ran
        for k in self.cells:
            if k[2] not in DRIVERS and k[2] not in self.drivers:
                self.drivers.append(k[2])

    def get(self, b, w, d, metric="iops"):
        a = self.agg.get((b, w, d))
        return None if a is None else a.get(metric)

    def paired(self, b, w, d, vs, metric="iops"):
        """Per-repetition ratios d/vs (the two ran within seconds)."""
        a = {m["rep"]: m.get(metric) for m in self.cells.get((b, w, d), []) if m}
        c = {m["rep"]: m.get(metric) for m in self.cells.get((b, w, vs), []) if m}
        return [a[r] / c[r] for r in sorted(a)
                if r in c and c[r] and a[r] is not None]

    def targets(self):
        out = []
        for b, w, d, vs, bound, metric in TARGETS:
            r = ratio(self.get(b, w, d, metric), self.get(b, w, vs, metric))
            pr = self.paired(b, w, d, vs, metric)
            cpu = metric == "cpu_vm_us"
            met = None
            if r is not None:
                met = r <= bound if cpu else r >= bound
            out.append({
                "backing": b, "workload": w, "driver": d, "versus": vs,
                "metric": metric, "bound": bound, "ratio": r,
                "per_rep": pr, "met": met,
                "what": ("CPU per I/O " if cpu else "") + "%s/%s" % (d, vs),
                "op": "<=" if cpu else ">=",
            })
        return out

    def onejob(self):
        """The lowest aio/loopdio of the 1-job QD32 points."""
        vals = [ratio(self.get(b, w, "aio"), self.get(b, w, "loopdio"))
                for b, w in ONEJOB]
        vals = [v for v in vals if v is not None]
        return min(vals) if vals else None

    def headline(self):
        b, w = HEADLINE
        vals = [ratio(self.get(b, w, "aio"), self.get(b, w, vs))
                for vs in ("raw", "loopdio", "sync")] + [self.onejob()]
        f = ["n/a" if v is None else "%.2f" % v for v in vals]
        return ("headline: aio/raw=%s aio/loopdio=%s aio/sync=%s "
                "onejob/loopdio=%s" % tuple(f), None not in vals)

    # ---- output ------------------------------------------------------------

    def to_json(self, extra):
        pts = []
        for (b, w, d), reps in self.cells.items():
            pts.append({
                "backing": b, "workload": w, "driver": d,
                **self.desc[w],
                "median": self.agg[(b, w, d)],
                "ratio_to_raw": {
                    k: ratio(self.get(b, w, d, k), self.get(b, w, "raw", k))
                    for k in ("iops", "bw_mib", "p50_us", "p99_us",
                              "cpu_fio_us", "cpu_vm_us")
                },
                "reps": reps,
            })
        return {
            **extra,
            "meta": self.meta,
            "module": self.module,
            "backings": self.backing_info,
            "drivers": {d: driver_desc(d) for d in self.drivers},
            "complete": self.ended and not self.failed_points,
            "failed_points": self.failed_points,
            "errors": self.errors,
            "points": pts,
            "targets": self.targets(),
            "headline": self.headline()[0],
        }

    def table(self, b, metric, fmt=fmt_num, ratios=True):
        head = "| workload | " + " | ".join(self.drivers) + " |"
        rows = [head, "|---" * (len(self.drivers) + 1) + "|"]
        for w in self.workloads:
            if not any((b, w, d) in self.cells for d in self.drivers):
                continue
            base = self.get(b, w, "raw", metric)
            cells = []
            for d in self.drivers:
                v = self.get(b, w, d, metric)
                if (b, w, d) not in self.cells:
                    cells.append("")
                elif v is None:
                    cells.append("failed")
                elif d == "raw" or not ratios:
                    cells.append(fmt(v))
                else:
                    cells.append("%s (%s)" % (fmt(v), fmt_ratio(ratio(v, base))))
            rows.append("| %s | %s |" % (w, " | ".join(cells)))
        return "\n".join(rows)

    def latency_table(self, b):
        head = "| workload | " + " | ".join(self.drivers) + " |"
        rows = [head, "|---" * (len(self.drivers) + 1) + "|"]
        for w in self.workloads:
            if not any((b, w, d) in self.cells for d in self.drivers):
                continue
            b50 = self.get(b, w, "raw", "p50_us")
            b99 = self.get(b, w, "raw", "p99_us")
            cells = []
            for d in self.drivers:
                v50 = self.get(b, w, d, "p50_us")
                v99 = self.get(b, w, d, "p99_us")
                if (b, w, d) not in self.cells:
                    cells.append("")
                elif v50 is None:
                    cells.append("failed")
                elif d == "raw":
                    cells.append("%s / %s" % (fmt_num(v50), fmt_num(v99)))
                else:
                    cells.append("%s / %s (%s / %s)" % (
                        fmt_num(v50), fmt_num(v99),
                        fmt_ratio(ratio(v50, b50)), fmt_ratio(ratio(v99, b99))))
            rows.append("| %s | %s |" % (w, " | ".join(cells)))
        return "\n".join(rows)

    def spread_table(self, b):
        head = "| workload | " + " | ".join(self.drivers) + " |"
        rows = [head, "|---" * (len(self.drivers) + 1) + "|"]
        for w in self.workloads:
            if not any((b, w, d) in self.cells for d in self.drivers):
                continue
            cells = []
            for d in self.drivers:
                a = self.agg.get((b, w, d))
                cells.append("" if a is None else "%.0f%%" % (a["spread"] * 100))
            rows.append("| %s | %s |" % (w, " | ".join(cells)))
        return "\n".join(rows)

    def counter_table(self, b):
        rows = ["| workload | submitted per I/O | direct | handed off "
                "| inline | queued | nowait_eagain | sync_ios | dio_retries "
                "| resubmits | errors |",
                "|---" * 11 + "|"]
        any_rows = False
        for w in self.workloads:
            reps = [m for m in self.cells.get((b, w, "aio"), []) if m]
            reps = [m for m in reps if "counters" in m]
            if not reps:
                continue
            any_rows = True
            c = {k: median([m["counters"][k] for m in reps]) for k in COUNTERS}
            # counters include the ramp, fio's I/O count does not: per
            # I/O figures use the counters' own total
            sub = c["aio_submitted"] or 0

            def pc(x):
                return "-" if not sub else "%.1f%%" % (100.0 * x / sub)
            ios = median([m["iops"] * (self.meta.get("runtime", 1)
                                       + self.meta.get("ramp", 0))
                          for m in reps])
            rows.append("| %s | %s | %s | %s | %s | %s | %s | %d | %d | %d "
                        "| %d |" % (
                w, fmt_ratio(ratio(sub, ios)), pc(c["aio_direct"]),
                pc(c["aio_handoff"]), pc(c["aio_inline"]),
                pc(c["aio_queued"]), pc(c["nowait_eagain"]),
                c["sync_ios"], c["dio_retries"], c["aio_resubmits"],
                c["errors"]))
        return "\n".join(rows) if any_rows else None

    def targets_md(self):
        """The target table, as lines."""
        L = ["| backing | workload | ratio | measured | per repetition "
             "| target | met |", "|---|---|---|---|---|---|---|"]
        for t in self.targets():
            met = "n/a" if t["met"] is None else ("yes" if t["met"] else "**no**")
            L.append("| %s | %s | %s | %s | %s | %s %.2f | %s |" % (
                t["backing"], t["workload"], t["what"], fmt_ratio(t["ratio"]),
                " ".join(fmt_ratio(x) for x in t["per_rep"]) or "-",
                t["op"], t["bound"], met))
        return L

    def readme_md(self, extra):
        """The summary README.md carries: headline, targets, IOPS, CPU."""
        m = self.meta
        hl, _ = self.headline()
        link = extra.get("results_link") or "bench/results/latest.md"
        L = ["Generated by `make bench` (%s; kernel %s, clock source %s, "
             "%s vCPUs under TCG, matrix %s, %s repetition(s), medians); "
             "the whole run is in [%s](%s)." % (
                 extra.get("date"), m.get("kernel"),
                 m.get("clocksource") or "?", m.get("ncpu"), m.get("matrix"),
                 m.get("reps"), link, link), "",
             "`%s`" % hl, ""]
        L += self.targets_md()
        for b in self.backings:
            bi = self.backing_info.get(b, {})
            L += ["", "IOPS, %s backing (%s), ratio to raw:" % (
                b, bi.get("desc", "")), "", self.table(b, "iops")]
            L += ["", "Whole-VM CPU per I/O, µs, %s backing, ratio to raw "
                  "(lower is better):" % b, "", self.table(b, "cpu_vm_us")]
        return "\n".join(L)

    def markdown(self, extra):
        m = self.meta
        L = []
        L.append("# aioloop benchmark: latest results")
        L.append("")
        L.append("Generated by `make bench` (scripts/bench.sh, bench/report.py) "
                 "from one boot of the test VM; do not edit, the next run "
                 "rewrites it. bench/README.md says how to read it.")
        L.append("")
        L.append("- date: %s; commit: %s" % (extra.get("date"), extra.get("commit")))
        L.append("- host: %s" % extra.get("host", "?"))
        L.append("- VM: QEMU TCG, %s vCPUs, %d MiB, kernel %s (clock source "
                 "%s), %s" % (
                     m.get("ncpu"), m.get("mem_kb", 0) // 1024,
                     m.get("kernel"), m.get("clocksource") or "?",
                     m.get("fio")))
        L.append("- matrix: %s%s; %s repetition(s) of %s s ramp + %s s "
                 "measured per point; the median is shown" % (
                     m.get("matrix"),
                     (" (only %s)" % m["only"]) if m.get("only") else "",
                     m.get("reps"), m.get("ramp"), m.get("runtime")))
        if self.module:
            L.append("- aioloop module: " + ", ".join(
                "%s=%s" % kv for kv in self.module.items()))
        L.append("- backing file: %s MiB on ext4, pre-filled (written "
                 "extents)" % m.get("size_mb"))
        for b in self.backings:
            bi = self.backing_info.get(b, {})
            L.append("  - %s: %s; %s extents, %s unwritten" % (
                b, bi.get("desc", "?"), bi.get("extents", "?"),
                bi.get("unwritten_extents", "?")))
        L.append("- drivers: " + "; ".join("%s = %s" % (d, driver_desc(d))
                                           for d in self.drivers))
        L.append("- fio: ioengine=libaio, direct=1, group_reporting; "
                 "workload names are <rw>-<bs>-qd<iodepth>-j<numjobs>")
        L.append("")
        if not self.ended or self.failed_points or self.errors:
            L.append("**Incomplete or failed run**: %s; %d failed point "
                     "repetition(s)." % (
                         "finished" if self.ended else "the guest did not finish",
                         self.failed_points))
            for e in self.errors[:30]:
                L.append("- `%s`" % e.replace("`", "'")[:300])
            L.append("")
        hl, _ = self.headline()
        L.append("`%s` (slow backing, 4k randread, iodepth 32, numjobs 1)" % hl)
        L.append("")
        L.append("## Targets")
        L.append("")
        L.append("IOPS ratios from this run: \"measured\" is the ratio of the "
                 "medians (as in the tables; it decides \"met\"), \"per "
                 "repetition\" the ratios of the two drivers within each "
                 "repetition, where they ran seconds apart.")
        L.append("")
        L += self.targets_md()
        L.append("")
        for b in self.backings:
            bi = self.backing_info.get(b, {})
            L.append("## %s backing: %s" % (b, bi.get("desc", "")))
            L.append("")
            L.append("### IOPS (ratio to raw)")
            L.append("")
            L.append(self.table(b, "iops"))
            L.append("")
            L.append("### Bandwidth, MiB/s (ratio to raw)")
            L.append("")
            L.append(self.table(b, "bw_mib"))
            L.append("")
            L.append("### Completion latency p50 / p99, µs (ratios to raw)")
            L.append("")
            L.append(self.latency_table(b))
            L.append("")
            L.append("### CPU per I/O, µs: fio's usr+sys (ratio to raw)")
            L.append("")
            L.append(self.table(b, "cpu_fio_us"))
            L.append("")
            L.append("### CPU per I/O, µs: whole VM from /proc/stat, "
                     "approximate (ratio to raw)")
            L.append("")
            L.append(self.table(b, "cpu_vm_us"))
            L.append("")
            L.append("### Context switches of the fio jobs per I/O")
            L.append("")
            L.append(self.table(b, "ctx_per_io", ratios=False))
            L.append("")
            L.append("### Busy vCPUs during the run (of %s)" % m.get("ncpu"))
            L.append("")
            L.append(self.table(b, "vm_busy_cpus"))
            L.append("")
            if (m.get("reps") or 1) > 1:
                L.append("### IOPS spread across repetitions, (max - min) / median")
                L.append("")
                L.append(self.spread_table(b))
                L.append("")
            ct = self.counter_table(b)
            if ct:
                L.append("### aioloop counters in aio mode "
                         "(/sys/block/aioloop0/aioloop/, median per point)")
                L.append("")
                L.append("Submitted per I/O: kaio submissions per fio I/O "
                         "(ramp included); direct (from the submitter's "
                         "context), handed off (to an idle CPU's worker), "
                         "inline, queued and nowait_eagain as a share of "
                         "the submissions.")
                L.append("")
                L.append(ct)
                L.append("")
        return "\n".join(L)

    def plot(self, outdir, workdir):
        gp = shutil.which("gnuplot")
        if not gp:
            print("report: gnuplot not installed, no plot (scripts/deps.sh "
                  "installs gnuplot-nox)", file=sys.stderr)
            return False
        os.makedirs(workdir, exist_ok=True)
        files = {}
        for b in self.backings:
            dat = os.path.join(workdir, "iops-%s.dat" % b)
            with open(dat, "w") as f:
                f.write("workload " + " ".join(self.drivers) + "\n")
                for w in self.workloads:
                    if not any((b, w, d) in self.cells for d in self.drivers):
                        continue
                    vals = []
                    for d in self.drivers:
                        v = self.get(b, w, d)
                        vals.append("NaN" if not v else "%.1f" % v)
                    f.write("%s %s\n" % (w, " ".join(vals)))
            files[b] = dat
        if not files:
            return False
        out = os.path.join(outdir, "iops.svg")
        n = len(files)
        gps = [
            "set terminal svg size 1200,%d dynamic font 'sans,11' "
            "background '#ffffff'" % (430 * n),
            "set output '%s'" % out,
            "set multiplot layout %d,1" % n,
            "set style data histogram",
            "set style histogram clustered gap 1",
            "set style fill solid 0.85 border -1",
            "set boxwidth 0.9",
            "set logscale y",
            "set ylabel 'IOPS (median, log scale)'",
            "set grid ytics",
            "set key outside right top",
            "set xtics rotate by -30 noenhanced",
            "set key noenhanced",
        ]
        for b, dat in files.items():
            bi = self.backing_info.get(b, {})
            gps.append("set title \"%s backing: %s\" noenhanced" % (
                b, bi.get("desc", "").replace('"', "'")))
            gps.append("plot " + ", ".join(
                "'%s' using %d:xtic(1) title columnheader" % (dat, i + 2)
                for i in range(len(self.drivers))))
        gps.append("unset multiplot")
        script = os.path.join(workdir, "iops.gp")
        with open(script, "w") as f:
            f.write("\n".join(gps) + "\n")
        r = subprocess.run([gp, script], capture_output=True, text=True)
        if r.returncode != 0:
            print("report: gnuplot failed: %s" % r.stderr.strip(),
                  file=sys.stderr)
            return False
        return True


def readme_markers(tag):
    """The comments around a kernel's summary; 6.1's carry no tag."""
    t = "" if tag in (None, "", "6.1") else " " + tag
    return ("<!-- bench:begin%s (generated by bench/report.py) -->" % t,
            "<!-- bench:end%s -->" % t)


def update_readme(path, text, tag=None):
    begin, end = readme_markers(tag)
    with open(path) as f:
        old = f.read()
    i = old.find(begin)
    j = old.find(end, i + 1) if i >= 0 else -1
    if i < 0 or j < i:
        print("report: no bench markers %r in %s, not updated" % (begin, path),
              file=sys.stderr)
        return
    new = old[:i + len(begin)] + "\n" + text + "\n" + old[j:]
    with open(path, "w") as f:
        f.write(new)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("console")
    ap.add_argument("outdir")
    ap.add_argument("--work", default=None, help="scratch directory")
    ap.add_argument("--commit", default="?")
    ap.add_argument("--host", default="?")
    ap.add_argument("--jsonl", default=None,
                    help="also write the raw point records here")
    ap.add_argument("--readme", default=None,
                    help="replace the part of this file between the "
                    "bench:begin and bench:end comments with a summary")
    ap.add_argument("--readme-tag", default=None,
                    help="the kernel series whose summary is replaced "
                    "(bench:begin TAG ... bench:end TAG; none for 6.1)")
    ap.add_argument("--results-link", default=None,
                    help="the summary's link to the full results")
    a = ap.parse_args()

    recs = parse_console(a.console)
    rep = Report(recs)
    if not rep.begun:
        print("report: no AIOBENCH records in %s" % a.console, file=sys.stderr)
        print("headline: aio/raw=n/a aio/loopdio=n/a aio/sync=n/a "
              "onejob/loopdio=n/a")
        return 1
    os.makedirs(a.outdir, exist_ok=True)
    # the run's date: when the console log was last written
    extra = {"date": time.strftime("%Y-%m-%d %H:%M:%S %Z",
                                   time.localtime(os.path.getmtime(a.console))),
             "commit": a.commit, "host": a.host,
             "results_link": a.results_link}
    with open(os.path.join(a.outdir, "latest.json"), "w") as f:
        json.dump(rep.to_json(extra), f, indent=1, sort_keys=False)
        f.write("\n")
    with open(os.path.join(a.outdir, "latest.md"), "w") as f:
        f.write(rep.markdown(extra) + "\n")
    if a.jsonl:
        with open(a.jsonl, "w") as f:
            for p in rep.points:
                f.write(json.dumps(p) + "\n")
    rep.plot(a.outdir, a.work or a.outdir)
    if a.readme:
        update_readme(a.readme, rep.readme_md(extra), a.readme_tag)

    for e in rep.errors:
        print("error: %s" % e)
    for t in rep.targets():
        met = "n/a" if t["met"] is None else ("met" if t["met"] else "MISSED")
        print("target %s %s %s %s %.2f: %s %s" % (
            t["backing"], t["workload"], t["what"], t["op"], t["bound"],
            fmt_ratio(t["ratio"]), met))
    print("results: %s/latest.md, latest.json, iops.svg" % a.outdir)
    hl, ok = rep.headline()
    print(hl)
    if not rep.ended or rep.failed_points or not ok:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
