"""Store chunk statistics and sentence scores as packed float64 arrays instead of JSON lists.

Existing rows are converted (JSON ``null`` becomes NaN), so stored results stay usable.
"""

import math

import numpy as np
from django.db import migrations, models


def _packed(values: list) -> bytes:
    def number(value: object) -> float:
        return math.nan if value is None else float(value)

    rows = [[number(v) for v in row] if isinstance(row, list) else number(row) for row in values]
    return np.asarray(rows, dtype="<f8").tobytes()


def pack(apps, schema_editor):  # noqa: ANN001
    rows = apps.get_model("metrics", "SegmentStatistics")
    for row in rows.objects.only("stats", "sentence_scores").iterator(chunk_size=200):
        row.packed_stats = _packed(row.stats)
        row.packed_sentence_scores = _packed(row.sentence_scores)
        row.save(update_fields=["packed_stats", "packed_sentence_scores"])


def unpack(apps, schema_editor):  # noqa: ANN001
    rows = apps.get_model("metrics", "SegmentStatistics")
    for row in rows.objects.only("packed_stats", "packed_sentence_scores", "stat_names").iterator(
        chunk_size=200
    ):
        width = max(len(row.stat_names), 1)
        stats = np.frombuffer(row.packed_stats, dtype="<f8").reshape(-1, width)
        sentence = np.frombuffer(row.packed_sentence_scores, dtype="<f8")
        row.stats = [[v if math.isfinite(v) else None for v in r] for r in stats.tolist()]
        row.sentence_scores = [v if math.isfinite(v) else None for v in sentence.tolist()]
        row.save(update_fields=["stats", "sentence_scores"])


class Migration(migrations.Migration):
    dependencies = [
        ("metrics", "0003_run_command_line_help"),
    ]

    operations = [
        migrations.AddField(
            model_name="segmentstatistics",
            name="packed_stats",
            field=models.BinaryField(default=bytes),
        ),
        migrations.AddField(
            model_name="segmentstatistics",
            name="packed_sentence_scores",
            field=models.BinaryField(default=bytes),
        ),
        migrations.RunPython(pack, unpack),
        migrations.RemoveField(model_name="segmentstatistics", name="stats"),
        migrations.RemoveField(model_name="segmentstatistics", name="sentence_scores"),
        migrations.RenameField(
            model_name="segmentstatistics", old_name="packed_stats", new_name="stats"
        ),
        migrations.RenameField(
            model_name="segmentstatistics",
            old_name="packed_sentence_scores",
            new_name="sentence_scores",
        ),
    ]
