"""The bot server's OpenAPI document is a contract a generated client can trust.

- ``POST /bots/{name}/act`` and ``/hint`` document their body (each game's
  player view as a JSON Schema), their typed answers and their
  400/404/413/422 errors, all of the one error shape ``{"error": "..."}``;
  real hints of every game's search bots pass schemathesis's checks against
  the exact answer schema;
- schemathesis, run in-process against the ASGI app (no network) with all
  its checks, finds no server error, no undocumented status, content type
  or header, and no answer outside its schema.  One setting is tuned, as
  schemathesis's own guide suggests for cross-field rules: a view that fits
  the schema may still not add up (a seat not to act, a hand of the wrong
  size), so a schema-valid body may be refused with 422.
"""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.config import SchemathesisConfig  # noqa: E402

from stichzoo import envs  # noqa: E402
from stichzoo.policies.runtimes.onnx_policy import SHIPPED_BOTS  # noqa: E402
from stichzoo.policies.serve import create_app  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

APP = create_app(SHIPPED_BOTS, levels=("random",))
CONFIG = SchemathesisConfig.from_dict(
    {"checks": {"positive_data_acceptance": {"expected-statuses": ["2xx", "404", "409", "422"]}},
     "generation": {"mode": "all"}})
SCHEMA = schemathesis.openapi.from_asgi("/openapi.json", APP, config=CONFIG)


def _doc() -> dict:
    return APP.openapi()


def test_act_documents_body_answer_and_errors():
    doc = _doc()
    op = doc["paths"]["/bots/{name}/act"]["post"]
    body = op["requestBody"]
    assert body["required"] is True
    refs = [s["$ref"] for s in body["content"]["application/json"]["schema"]["anyOf"]]
    components = doc["components"]["schemas"]
    assert len(refs) == len(envs.GAMES)
    for ref in refs:
        assert ref.removeprefix("#/components/schemas/") in components
    assert "WizardView" in components and "GeheimtrumpfView" in components
    for status in ("400", "404", "413", "422"):
        schema = op["responses"][status]["content"]["application/json"]["schema"]
        assert schema["$ref"] == "#/components/schemas/ErrorAnswer"
    assert components["ErrorAnswer"]["required"] == ["error"]
    answer = op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert answer.endswith("/ActAnswer")
    assert {"bot", "seat", "action", "action_id", "kind", "probability"} <= set(
        components["ActAnswer"]["properties"])
    params = {p["name"]: p["schema"] for p in op["parameters"]}
    assert params["sample"]["type"] == "boolean"
    assert params["seed"]["type"] == "integer" and params["seed"]["minimum"] == 0
    assert params["seed"]["maximum"] == 2**63 - 1


def test_every_ref_in_the_document_resolves():
    doc = _doc()
    components = doc["components"]["schemas"]
    refs = []

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                refs.append(node["$ref"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(doc)
    assert refs
    for ref in refs:
        assert ref.startswith("#/components/schemas/"), ref
        assert ref.removeprefix("#/components/schemas/") in components, ref


def test_bot_list_is_typed():
    doc = _doc()
    listed = doc["paths"]["/bots"]["get"]["responses"]["200"]["content"]["application/json"]
    assert listed["schema"]["$ref"].endswith("/BotList")
    summary = doc["components"]["schemas"]["BotSummary"]["properties"]
    assert {"name", "kind", "level", "strength", "game"} <= set(summary)


@SCHEMA.parametrize()
@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_schemathesis_all_checks(case):
    case.call_and_validate()


def test_hint_documents_body_answer_and_errors():
    doc = _doc()
    op = doc["paths"]["/bots/{name}/hint"]["post"]
    act = doc["paths"]["/bots/{name}/act"]["post"]
    assert op["requestBody"] == act["requestBody"]  # the same player view
    for status in ("400", "404", "413", "422"):
        schema = op["responses"][status]["content"]["application/json"]["schema"]
        assert schema["$ref"] == "#/components/schemas/ErrorAnswer"
    assert "without values" in op["responses"]["422"]["description"]
    answer = op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert answer.endswith("/HintAnswer")
    components = doc["components"]["schemas"]
    hint = components["HintAnswer"]
    assert set(components["ActAnswer"]["properties"]) | {"why", "values"} == set(
        hint["properties"])
    item = hint["properties"]["values"]["items"]["$ref"].removeprefix("#/components/schemas/")
    value = components[item]
    assert value["additionalProperties"] is False
    assert set(value["required"]) == set(value["properties"]) == {
        "action", "action_id", "kind", "value", "stderr", "worlds", "difference",
        "difference_stderr", "reason"}
    assert [p["name"] for p in op["parameters"]] == ["name", "seed"]


def test_real_hints_fit_the_documented_answer():
    """Schemathesis's checks on real answers of every game's search bots: 200 and in schema."""
    from tests.serve.test_serve_hint import hint_views

    app = create_app(SHIPPED_BOTS, levels=("pimc:worlds=2", "search:worlds=2"), web_table=False)
    op = schemathesis.openapi.from_asgi("/openapi.json", app, config=CONFIG)[
        "/bots/{name}/hint"]["POST"]
    for game in envs.GAMES:
        _, view = hint_views(game, 1, seed=3)[0]
        for kind in ("pimc", "search"):
            case = op.Case(path_parameters={"name": f"{game}-{kind}"}, query={"seed": 5},
                           body=view, media_type="application/json")
            assert case.call_and_validate().status_code == 200
