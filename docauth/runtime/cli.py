"""``docauth export | tune | doctor``: the runtime layer's commands."""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import sys
from pathlib import Path

import click

from docauth.config import Settings
from docauth.errors import DocauthError
from docauth.runtime import backends, tuning
from docauth.runtime.export import export_onnx
from docauth.runtime.model import SHA256_KEY, record_checksums
from docauth.runtime.probe import cached_probe
from docauth.runtime.threading import plan_for
from docauth.runtime.tuning import parse_models


def _clean_errors(fn):
    """DocauthError -> message and exit status 1, never a stack trace."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except DocauthError as exc:
            raise click.ClickException(exc.message) from exc

    return wrapper


models_option = click.option("--models", "models", default=None,
                             help="Comma-separated model names (default: every model in the models directory).")
models_dir_option = click.option("--models-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                                 help="Models directory (default: DOCAUTH_MODELS_DIR or ./models).")


@click.command()
@models_option
@models_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.option("--checksums-only", is_flag=True,
              help="Only (re)write the SHA-256 of each model's .keras/.onnx into its .json (no export).")
@_clean_errors
def export(models, models_dir, as_json, checksums_only):
    """Export the Keras models to ONNX (models/<name>.onnx), verify parity with Keras, and record the SHA-256
    of each model's files in its .json (the service refuses files whose hash does not match)."""
    models_dir = models_dir or Settings.load().models_dir
    names = parse_models(models, models_dir)
    if not names:
        raise click.ClickException(f"no models (<name>.keras + <name>.json) in {models_dir}")
    if checksums_only:
        recorded = {name: record_checksums(name, models_dir)[SHA256_KEY] for name in names}
        if as_json:
            click.echo(json.dumps(recorded, indent=2))
        else:
            for name, hashes in recorded.items():
                click.echo(f"{name}: " + ", ".join(f"{f} {h[:12]}..." for f, h in hashes.items()))
        return
    results = []
    for name in names:
        result = export_onnx(name, models_dir)
        results.append(result.export())
        if not as_json:
            click.echo(f"{name}: {result.path} via {result.method} in {result.seconds} s; "
                       f"max abs diff vs Keras {result.max_abs_diff:.2e}, argmax agreement "
                       f"{result.argmax_agreement:.0%} on {result.samples} inputs")
    if as_json:
        click.echo(json.dumps(results, indent=2))


@click.command()
@models_option
@models_dir_option
@click.option("--seconds", default=0.6, show_default=True, type=float, help="Measuring time per case.")
@click.option("--batch-sizes", default="4,8,16,32", show_default=True, help="Batch sizes tried for throughput.")
@click.option("--mode", "modes", multiple=True, type=click.Choice(["realtime", "throughput"]),
              help="Modes to tune (default both).")
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Profile path (default: DOCAUTH_DATA_DIR/runtime-profile.json).")
@click.option("--json", "as_json", is_flag=True, help="Print the profile as JSON instead of the table.")
@_clean_errors
def tune(models, models_dir, seconds, batch_sizes, modes, output, as_json):
    """Measure every backend x thread setting x batch size here; write the deployment profile."""
    settings = Settings.load()
    models_dir = models_dir or settings.models_dir
    names = tuning.parse_models(models, models_dir)
    if not names:
        raise click.ClickException(f"no models (<name>.keras + <name>.json) in {models_dir}")
    try:
        sizes = tuple(int(b) for b in batch_sizes.split(",") if b.strip())
    except ValueError:
        raise click.ClickException(f"--batch-sizes must be integers, not {batch_sizes!r}") from None
    progress = None if as_json else (lambda line: click.echo(line, err=True))
    profile = tuning.tune(names, models_dir=models_dir, modes=modes or ("realtime", "throughput"),
                         batch_sizes=sizes, seconds_per_case=seconds, progress=progress)
    path = output or tuning.profile_path(settings)
    profile = tuning.merge_profile(tuning.load_profile(path), profile)
    tuning.write_profile(profile, path)
    if as_json:
        click.echo(json.dumps(profile, indent=1))
    else:
        click.echo(tuning.format_table(profile))
        click.echo(f"profile written to {path}")


@click.command()
@models_option
@models_dir_option
@click.option("--mode", type=click.Choice(["realtime", "throughput"]), default=None,
              help="Mode to explain (default: DOCAUTH_MODE).")
@click.option("--json", "as_json", is_flag=True)
@_clean_errors
def doctor(models, models_dir, mode, as_json):
    """Show the hardware probe, the usable backends and the active choice with its reason."""
    report = doctor_report(models, models_dir, mode)
    if as_json:
        click.echo(json.dumps(report, indent=2, default=str))
        return
    p = report["probe"]
    click.echo(f"CPU       {p['cpu_model']}: {p['physical_cores']} physical cores (of {p['logical_cpus']} logical, "
               f"{p['usable_cpus']} usable), {p['sockets']} socket(s), {p['cpu_mhz']} MHz, {p['memory_gib']} GiB")
    isa = ", ".join(k for k, v in p["isa"].items() if v) or "none"
    click.echo(f"ISA       {isa}  (bf16: {'yes' if p['supports_bf16'] else 'no'}, "
               f"AMX: {'yes' if p['isa'].get('amx_tile') else 'no'})")
    click.echo(f"GPUs      TensorFlow: {p['tf_gpus'] or 'none'}; ONNX Runtime: {p['ort_gpus'] or 'none'}")
    click.echo(f"ORT       providers: {', '.join(p['ort_providers']) or 'not installed'}")
    click.echo(f"OpenVINO  devices: {', '.join(p['openvino_devices']) or 'not installed'}")
    click.echo("versions  " + ", ".join(f"{k} {v}" for k, v in p["framework_versions"].items()))
    click.echo(f"machine   fingerprint {p['fingerprint']}")
    t = report["threading_plan"]
    click.echo(f"threading {report['mode']}: intra-op {t['intra_op']}, inter-op {t['inter_op']}, "
               f"OMP_NUM_THREADS={t['omp_num_threads']}, KMP_BLOCKTIME={t['kmp_blocktime']}")
    click.echo("backends")
    for a in report["backends"]:
        click.echo(f"  {'+' if a['available'] else '-'} {a['name']:22s} {a['reason']}")
    prof = report["profile"]
    click.echo(f"profile   {prof['path']}: {prof['status']}")
    click.echo(f"mode      {report['mode']} ({report['mode_source']})")
    for name, c in report["choices"].items():
        click.echo(f"  {name}: {c['backend']} [{c['source']}] because {c['reason']}")
    for note in report["notes"]:
        click.echo(f"note      {note}")


def doctor_report(models=None, models_dir=None, mode=None) -> dict:
    settings = Settings.load(mode=mode)
    models_dir = models_dir or settings.models_dir
    probe = cached_probe()
    mode_source = "--mode" if mode else ("DOCAUTH_MODE" if os.environ.get("DOCAUTH_MODE") else "settings default")
    path = tuning.profile_path(settings)
    profile = tuning.load_profile(path)
    if profile is None:
        status = "none: `docauth tune` writes one; without it, loading measures briefly at start-up"
    elif profile["fingerprint"] == probe.fingerprint():
        status = f"matches this machine (created {profile.get('created')}, quick={profile.get('quick')})"
    else:
        status = f"for another machine ({profile['fingerprint']}): ignored"
    choices, notes = {}, []
    # Doctor explains; it does not measure: without a matching profile it shows the default ranking.
    explain = dataclasses.replace(settings, autotune=False)
    for name in tuning.parse_models(models, models_dir):
        choice = tuning.auto_choice(name, models_dir=models_dir, mode=settings.mode, settings=explain, probe=probe)
        spec = choice.specs[0].key if choice.specs else backends.FALLBACK.key
        choices[name] = {"backend": spec, "batch": choice.batch_size, "source": choice.source, "reason": choice.reason}
        notes.extend(choice.notes)
    if not choices:
        notes.append(f"no models in {models_dir}")
    return {
        "probe": probe.export(),
        "mode": settings.mode,
        "mode_source": mode_source,
        "threading_plan": dataclasses.asdict(plan_for(settings.mode, probe.physical_cores, probe.sockets)),
        "backends": [dataclasses.asdict(a) for a in backends.availability(probe)],
        "profile": {"path": str(path), "status": status},
        "choices": choices,
        "notes": sorted(set(notes)),
    }


if __name__ == "__main__":  # pragma: no cover
    sys.exit(doctor())
