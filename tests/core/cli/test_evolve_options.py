"""``toolatlas evolve`` options: five seeds by default (CONTDA App. B.3), and the fallback and note-indexing
switches reaching the pipeline's settings."""

from core.cli.entry import build_parser


def _args(*extra):
    return build_parser().parse_args(["evolve", "demo", *extra])


def test_five_seeds_fallback_on_and_notes_unindexed_by_default():
    args = _args()
    assert args.seeds == 5 and args.no_fallback is False and args.index_notes is False


def test_switches_parse():
    args = _args("--no-fallback", "--index-notes", "--seeds", "2")
    assert args.seeds == 2 and args.no_fallback is True and args.index_notes is True


def test_the_pipeline_defaults_match_and_the_switches_are_stored_with_the_run():
    from core.evolution.pipeline import EvolutionConfig

    config = EvolutionConfig()
    assert config.fallback is True and config.index_notes is False
    stored = EvolutionConfig(fallback=False, index_notes=True).to_json()
    assert stored["fallback"] is False and stored["index_notes"] is True  # part of what a run is found by
