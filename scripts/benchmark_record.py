#!/usr/bin/python3
"""Remakes the tables of BENCHMARKS.md from Google Benchmark JSON.

heft's benchmark binaries (bench_poly, bench_lib, bench_serialization) write
their medians as JSON; bench/anchors.json says, for each row the record shows,
which reference figure it is set against (library, figure, unit, the line of
../shared/ANCHORS.md) and what ratio the issues ask for. This script joins the
two into one markdown table per area, with the machine, ISA level, threads,
commit and commands of the run above them, and draws one chart per area.
The reference libraries' own Google Benchmark JSON (SEAL's sealbench, HEXL's
bench), when given with --anchor-json, replaces the published figures of the
rows it covers, so a side-by-side run goes into the same tables.

Usage (see BENCHMARKS.md, "Machine and method"):
  scripts/benchmark_record.py --filter bench_lib        # the rows' regex for --benchmark_filter
  scripts/benchmark_record.py HEFT.json... [--anchor-json REF.json...]
      [--update BENCHMARKS.md] [--charts docs/benchmarks] [--commit SHA] [--cpu MODEL]
Without --update the tables go to standard output. Standard library only,
plus matplotlib (Debian: python3-matplotlib) for --charts.
"""

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys

BEGIN_MARKER = "<!-- tables:begin -->"
END_MARKER = "<!-- tables:end -->"

# Seconds per unit, for times; bytes stay bytes.
TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
UNIT_LABELS = {"ns": "ns", "us": "µs", "ms": "ms", "s": "s", "B": "B"}
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class RecordError(Exception):
    """A problem with the inputs, reported without a traceback."""


def regex_escape(name):
    # Google Benchmark's filter is a POSIX extended regex: escape only its
    # metacharacters ('-' and '/' stay as they are).
    return "".join("\\" + c if c in ".^$*+?()[]{}|\\" else c for c in name)


def load_anchors(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    areas = {a["id"]: a for a in data["areas"]}
    for row in data["rows"]:
        if row["area"] not in areas:
            raise RecordError(f"{path}: row {row['row']} names unknown area {row['area']}")
    return data


def heft_rows_of(spec):
    """The heft benchmark rows whose medians, summed, make this row."""
    return spec.get("sum_of", [spec["row"]])


def filter_regex(anchors, binary):
    names = []
    binaries = {a["id"]: a["binary"] for a in anchors["areas"]}
    for row in anchors["rows"]:
        for name in heft_rows_of(row):
            if binaries[row["area"]] == binary and name not in names:
                names.append(name)
    if not names:
        raise RecordError(f"no rows for binary {binary}")
    # Rows timed with UseRealTime() carry "/real_time" after their name.
    return "^(" + "|".join(regex_escape(n) for n in names) + ")(/real_time)?$"


def read_benchmark_json(path):
    """Returns (context, {run_name: entry}) with each entry the run's median."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    medians = {}
    singles = {}
    for b in data.get("benchmarks", []):
        name = b.get("run_name", b["name"])
        if name.endswith("/real_time"):
            name = name[: -len("/real_time")]
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[name] = b
        elif b.get("error_occurred"):
            raise RecordError(f"{path}: {name} failed: {b.get('error_message', '')}")
        else:
            singles.setdefault(name, []).append(b)
    # Runs without aggregates (one repetition, or --benchmark_repetitions
    # without report_aggregates_only): the median of their iterations' rows.
    for name, runs in singles.items():
        if name in medians:
            continue
        entry = dict(runs[0])
        for key in ("real_time", "cpu_time", "bytes"):
            if key in entry:
                entry[key] = statistics.median(r[key] for r in runs)
        entry["repetitions"] = len(runs)
        medians[name] = entry
    return data.get("context", {}), medians


def figure_of(entry, metric):
    """(value, unit) of one median entry: its real time, or a counter."""
    if metric == "time":
        return entry["real_time"], entry["time_unit"]
    if metric not in entry:
        raise RecordError(f"{entry.get('run_name', entry['name'])} has no counter '{metric}'")
    return entry[metric], "B" if metric == "bytes" else metric


def convert(value, unit, to_unit):
    if unit == to_unit:
        return value
    if unit in TIME_UNITS and to_unit in TIME_UNITS:
        return value * TIME_UNITS[unit] / TIME_UNITS[to_unit]
    raise RecordError(f"cannot convert {unit} to {to_unit}")


def format_number(value, unit):
    if unit == "B":
        return f"{value:,.0f}"
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    if abs(value) >= 1:
        return f"{value:.2f}"
    return f"{value:#.3g}"


def format_ratio(ratio):
    return f"{ratio:.2f}x" if ratio >= 0.1 else f"{ratio:.2g}x"


def measured_anchor(row, anchor_medians, unit):
    """The sum, in unit, of the reference binary's medians that stand for this row, or None."""
    patterns = row.get("anchor_benchmark")
    if not patterns or not anchor_medians:
        return None
    total = 0.0
    for pattern in patterns:
        matches = [n for n in anchor_medians if re.fullmatch(pattern, n)]
        if not matches:
            return None
        value, value_unit = figure_of(anchor_medians[sorted(matches)[0]], "time")
        total += convert(value, value_unit, unit)
    return total


def build_rows(anchors, heft_runs, anchor_medians):
    """One dict per row of anchors.json, with the figures and the verdict.

    heft_runs holds one {run_name: median entry} per JSON file. A row found in
    several files (the same binary run again) takes the median of their
    figures, and keeps their range."""
    rows = []
    for spec in anchors["rows"]:
        metric = spec.get("metric", "time")
        anchor = spec.get("anchor")
        out = {"spec": spec, "area": spec["area"], "goal": spec.get("goal")}
        unit = anchor["unit"] if anchor else None
        figures = []
        for medians in heft_runs:
            entries = [medians.get(name) for name in heft_rows_of(spec)]
            if any(e is None for e in entries):
                continue
            total = 0.0
            for entry in entries:
                value, value_unit = figure_of(entry, metric)
                unit = unit or value_unit
                total += convert(value, value_unit, unit)
            figures.append(total)
        if figures:
            out["heft"] = statistics.median(figures)
            out["range"] = (min(figures), max(figures))
        out["unit"] = unit = unit or "ms"
        measured = measured_anchor(spec, anchor_medians, unit)
        if measured is not None:
            library = anchor["library"] if anchor else spec.get("anchor_library", "reference")
            out["anchor"] = {"library": library, "value": measured, "here": True}
        elif anchor:
            out["anchor"] = {"library": anchor["library"], "value": anchor["value"], "here": False}
        if "heft" in out and "anchor" in out and out["anchor"]["value"] > 0:
            out["ratio"] = out["heft"] / out["anchor"]["value"]
        rows.append(out)
    return rows


def verdict(row):
    goal = row["goal"]
    if goal is None:
        return ""
    if "heft" not in row:
        return "not run"
    if "ratio" not in row:
        return "side by side"
    return "holds" if row["ratio"] <= goal else "**short**"


def area_table(area, rows):
    lines = [
        "| row | heft | anchor | anchor figure | heft / anchor | goal | |",
        "|---|---:|---|---:|---:|---:|---|",
    ]
    for row in rows:
        spec = row["spec"]
        label = spec.get("label", spec["row"])
        if spec.get("metric", "time") not in ("time", "bytes"):
            label += f" ({spec['metric']})"
        elif spec.get("metric") is None and any(
            r is not row and r["spec"]["row"] == spec["row"] for r in rows
        ):
            label += " (time)"
        unit = row["unit"]
        unit_label = UNIT_LABELS.get(unit, unit or "")
        heft = f"{format_number(row['heft'], unit)} {unit_label}" if "heft" in row else "not run"
        if "heft" in row and row["range"][0] != row["range"][1]:
            low, high = (format_number(x, unit) for x in row["range"])
            heft += f" ({low}–{high})"
        if "anchor" in row:
            anchor = row["anchor"]
            library = anchor["library"] + (", here" if anchor["here"] else "")
            figure = f"{format_number(anchor['value'], unit)} {unit_label}"
        else:
            library, figure = "", ""
        ratio = format_ratio(row["ratio"]) if "ratio" in row else ""
        if ratio and row["goal"] is not None and ratio == format_ratio(row["goal"]):
            ratio = f"{row['ratio']:.3f}x"  # on the line: one more digit shows which side
        goal = ""
        if row["goal"] is not None:
            goal = format_ratio(row["goal"])
            if spec.get("goal_note"):
                goal += f" ({spec['goal_note']})"
        lines.append(
            f"| `{label}` | {heft} | {library} | {figure} | {ratio} | {goal} | {verdict(row)} |"
        )
    return lines


def cpu_description(override):
    if override:
        return override
    fields = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    break  # the first processor is enough
                key, _, value = line.partition(":")
                fields[key.strip()] = value.strip()
    except OSError:
        return "unknown (no /proc/cpuinfo)"
    flags = set(fields.get("flags", "").split())
    isa = "AVX-512 with IFMA" if "avx512ifma" in flags else (
        "AVX-512" if "avx512f" in flags else ("AVX2" if "avx2" in flags else "no AVX2"))
    model = fields.get("model name", "unknown")
    return f"{model} (family {fields.get('cpu family', '?')}, model {fields.get('model', '?')}), {isa}"


def git_commit(override):
    if override:
        return override
    try:
        return subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def header_lines(args, runs, rows):
    contexts = [ctx for ctx, _, _ in runs]
    isas = sorted({c.get("heft_isa", "not recorded") for c in contexts})
    threads = sorted({c.get("heft_threads", "not recorded") for c in contexts})
    dates = sorted(c.get("date", "?")[:16].replace("T", " ") for c in contexts)
    reps = sorted({str(e.get("repetitions", 1)) for _, m, _ in runs for e in m.values()})
    per_binary, load_of = {}, {}
    for c in contexts:
        name = os.path.basename(c.get("executable", "?"))
        per_binary[name] = per_binary.get(name, 0) + 1
        if c.get("load_avg"):
            load_of.setdefault(name, []).append(f"{c['load_avg'][0]:.2f}")
    loads = [f"{name} {', '.join(values)}" for name, values in load_of.items()]
    cores = sorted({str(c.get("num_cpus", "?")) for c in contexts})
    where = "" if args.cpu else " (from /proc/cpuinfo where the tables were made)"
    lines = [
        f"- **CPU:** {cpu_description(args.cpu)}, {'/'.join(cores)} cores{where}.",
        f"- **ISA level heft chose:** {', '.join(isas)}. **Threads:** {', '.join(threads)}.",
        f"- **Commit:** {git_commit(args.commit)}. **Date:** {dates[0]}"
        + (f" to {dates[-1]}" if dates[-1] != dates[0] else "") + ".",
        f"- **Figures:** medians of {', '.join(reps)} repetitions"
        + (f"; a binary run {max(per_binary.values())} times gives the median of its runs, with"
           " their range in brackets" if max(per_binary.values()) > 1 else "")
        + (f". Load average when each run started: {'; '.join(loads)}." if loads else "."),
        "- **Commands:**",
        "  ```sh",
    ]
    own_anchors = os.path.abspath(args.anchors) != os.path.join(REPO, "bench", "anchors.json")
    anchors_option = f"--anchors {shlex.quote(args.anchors)} " if own_anchors else ""
    outputs = {}
    for ctx, _, path in runs:
        executable = ctx.get("executable", "?")
        key = (executable, ctx.get("heft_threads", "1"))
        outputs.setdefault(key, []).append(os.path.relpath(os.path.abspath(path), REPO))
    for (executable, threads), paths in outputs.items():
        name = os.path.basename(executable)
        lines.append(
            f"  HEFT_NUM_THREADS={threads} {executable} "
            f"--benchmark_filter=\"$(scripts/benchmark_record.py {anchors_option}--filter {name})\" "
            f"--benchmark_repetitions={reps[-1]} --benchmark_report_aggregates_only=true "
            f"--benchmark_format=json > {paths[0]}"
            + (f"  # and again > {', '.join(paths[1:])}" if len(paths) > 1 else "")
        )
    lines.append("  " + shlex.join(["scripts/benchmark_record.py"] + args.argv))
    lines.append("  ```")
    here = any(r.get("anchor", {}).get("here") for r in rows)
    lines.append(
        "- **Anchors:** the published figures of `../shared/ANCHORS.md` (AMD EPYC Zen 4 with "
        "AVX-512 IFMA, one thread), through `bench/anchors.json`"
        + ("; rows marked \"here\" use the reference's own binary, run beside heft." if here
           else "; no reference binary was run beside heft for these tables.")
    )
    return lines


def draw_chart(area, rows, path, subtitle):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    drawn = [r for r in rows if "ratio" in r]
    if not drawn:
        return False
    labels = [r["spec"].get("label", r["spec"]["row"]) for r in drawn]
    ratios = [r["ratio"] for r in drawn]
    height = 1.2 + 0.32 * len(drawn)
    fig, ax = plt.subplots(figsize=(10, height))
    positions = list(range(len(drawn)))[::-1]
    colours = []
    for r in drawn:
        goal = r["goal"]
        colours.append("#888888" if goal is None else ("#2a7ab0" if r["ratio"] <= goal else "#d0502a"))
    ax.barh(positions, ratios, color=colours, height=0.6)
    for pos, r in zip(positions, drawn):
        if r["goal"] is not None:
            ax.plot([r["goal"], r["goal"]], [pos - 0.4, pos + 0.4], color="black", linewidth=1.5)
        ax.text(r["ratio"] * 1.04, pos, format_ratio(r["ratio"]), va="center", fontsize=7)
    ax.axvline(1.0, color="#444444", linewidth=0.8, linestyle="--")
    ax.set_xscale("log")
    ax.set_yticks(positions)
    ax.set_yticklabels(labels, fontsize=7)
    ax.set_xlabel("heft / anchor, log scale (below 1: heft faster or smaller)\nblack tick: goal; "
                  "blue: holds, red: short, grey: no goal", fontsize=8)
    ax.set_title(f"{area['title']}: {subtitle}", fontsize=9)
    lo = min(min(ratios), min((r["goal"] for r in drawn if r["goal"]), default=1.0)) / 1.6
    hi = max(max(ratios) * 1.6, 1.5)
    ax.set_xlim(lo, hi)
    ticks = [m * 10.0**e for e in range(-3, 2) for m in (1, 2, 5) if lo <= m * 10.0**e <= hi]
    ax.xaxis.set_major_locator(matplotlib.ticker.FixedLocator(ticks))
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:g}x"))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)
    return True


def generate(args):
    anchors = load_anchors(args.anchors)
    runs = []
    for path in args.heft_json:
        ctx, medians = read_benchmark_json(path)
        runs.append((ctx, medians, path))
    anchor_medians = {}
    for path in args.anchor_json:
        anchor_medians.update(read_benchmark_json(path)[1])
    rows = build_rows(anchors, [medians for _, medians, _ in runs], anchor_medians)

    commit = git_commit(args.commit)
    out = [
        BEGIN_MARKER,
        "<!-- Made by scripts/benchmark_record.py from the JSON named below; do not edit by hand. -->",
        "",
    ]
    out += header_lines(args, runs, rows)
    md_dir = os.path.dirname(os.path.abspath(args.update)) if args.update else os.getcwd()
    for area in anchors["areas"]:
        area_rows = [r for r in rows if r["area"] == area["id"]]
        if not any("heft" in r for r in area_rows):
            continue  # no JSON of this area's binary given
        out += ["", f"### {area['title']} (`{area['binary']}`)", ""]
        out += area_table(area, area_rows)
        if args.charts:
            os.makedirs(args.charts, exist_ok=True)
            png = os.path.join(args.charts, f"{area['id']}.png")
            if draw_chart(area, area_rows, png, f"heft at {commit}"):
                link = os.path.relpath(os.path.abspath(png), md_dir)
                out += ["", f"![{area['title']}: heft / anchor per row]({link})"]
    out += ["", END_MARKER]
    return "\n".join(out) + "\n"


def update_file(path, block):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    begin, end = text.find(BEGIN_MARKER), text.find(END_MARKER)
    if begin < 0 or end < begin:
        raise RecordError(f"{path} has no {BEGIN_MARKER} ... {END_MARKER} block")
    text = text[:begin] + block.rstrip("\n") + text[end + len(END_MARKER):]
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("heft_json", nargs="*", help="heft's Google Benchmark JSON files")
    parser.add_argument("--anchors", default=os.path.join(REPO, "bench", "anchors.json"))
    parser.add_argument("--anchor-json", action="append", default=[],
                        help="a reference library's Google Benchmark JSON (repeatable)")
    parser.add_argument("--filter", metavar="BINARY",
                        help="print the --benchmark_filter regex of BINARY's rows and exit")
    parser.add_argument("--update", metavar="MARKDOWN",
                        help="rewrite the tables between the markers of this file")
    parser.add_argument("--charts", metavar="DIR", help="write one PNG chart per area here")
    parser.add_argument("--commit", help="the commit the binaries were built at (default: HEAD)")
    parser.add_argument("--cpu", help="the CPU, if not this machine's /proc/cpuinfo")
    args = parser.parse_args(argv)
    args.argv = argv
    try:
        if args.filter:
            print(filter_regex(load_anchors(args.anchors), args.filter))
            return 0
        if not args.heft_json:
            parser.error("give heft's JSON files (or --filter BINARY)")
        if args.charts:
            try:
                import matplotlib  # noqa: F401
            except ImportError:
                raise RecordError("--charts needs matplotlib (Debian: apt-get install python3-matplotlib)")
        block = generate(args)
        if args.update:
            update_file(args.update, block)
        else:
            sys.stdout.write(block)
        return 0
    except (RecordError, OSError, KeyError, ValueError) as error:
        print(f"benchmark_record.py: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
