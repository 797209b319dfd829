import pickle

from core.importers.errors import CatalogImportError


def test_message_names_file_record_and_field():
    err = CatalogImportError("tools.json", "missing", record=3, field="function.name")
    assert str(err) == "tools.json: record 3: field 'function.name': missing"
    assert isinstance(err, ValueError)


def test_file_level_error_has_no_record_or_field():
    err = CatalogImportError("tools.json", "file is empty")
    assert (str(err), err.record, err.field) == ("tools.json: file is empty", None, None)


def test_survives_pickling():
    err = pickle.loads(pickle.dumps(CatalogImportError("q.jsonl", "bad", record=2, field="gold")))
    assert (str(err), err.path, err.record, err.field, err.message) == (
        "q.jsonl: record 2: field 'gold': bad", "q.jsonl", 2, "gold", "bad")
