"""The light client of ``benchmarks/bench_class_load.py`` (``benchmarks/_light_client.py``): its wire format, its
reading of the widget states, and one page against a real served dashboard (a preheated kernel, as ``serve``
runs it) reaching the first view.  ``bench_class_load.py --validate`` compares it with a Chromium page."""
from __future__ import annotations

import asyncio
import concurrent.futures
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests" / "browser"))

import _light_client as lc  # noqa: E402


def test_v1_frames_round_trip_with_buffers():
    msg = lc._msg("s1", "comm_msg", {"comm_id": "c", "data": {"method": "request_states"}}, {"version": "1.0.0"})
    msg["buffers"] = [b"\x00\x01\x02", b"abc"]
    channel, back = lc.decode(lc.encode(msg, "shell"))
    assert channel == "shell"
    assert back["header"]["msg_type"] == "comm_msg" and back["header"]["session"] == "s1"
    assert back["content"] == msg["content"] and back["metadata"] == {"version": "1.0.0"}
    assert [bytes(b) for b in back["buffers"]] == [b"\x00\x01\x02", b"abc"]
    assert lc.describe(back) == "comm_msg:request_states"


def test_describe_names_comm_targets_methods_and_events():
    assert lc.describe(lc._msg("s", "comm_open", {"target_name": "jupyter.widget.control"})) == \
        "comm_open:jupyter.widget.control"
    assert lc.describe(lc._msg("s", "comm_msg", {"data": {"method": "custom", "content": {"event": "drawn"}}})) == \
        "comm_msg:custom:drawn"
    assert lc.describe(lc._msg("s", "comm_msg", {"data": {"method": "update", "state": {"b": 1, "a": 2}}})) == \
        "comm_msg:update:a,b"
    assert lc.describe(lc._msg("s", "kernel_info_request", {})) == "kernel_info_request"


def _states(preset_disabled=False, drop=None, traces=2):
    def m(name, **state):
        return {"model_name": name, "model_module": "@jupyter-widgets/controls", "state": state}

    s = {
        "top": m("VBoxModel", _dom_classes=["pe-app"], children=["IPY_MODEL_tabs"]),
        "tabs": m("TabModel", children=[f"IPY_MODEL_{k}" for k in ("body", "eq", "sec", "mot")]),
        "body": m("VBoxModel", _dom_classes=["pe-body", "pe-panel"], children=["IPY_MODEL_inner"]),
        "eq": m("VBoxModel", _dom_classes=["pe-equilibria", "pe-panel"], children=[]),
        "sec": m("VBoxModel", _dom_classes=["pe-section", "pe-panel"], children=[]),
        "mot": m("VBoxModel", _dom_classes=["pe-motion", "pe-panel"], children=[]),
        "inner": m("HBoxModel", children=["IPY_MODEL_preset", "IPY_MODEL_other", "IPY_MODEL_preview"]),
        "preset": m("DropdownModel", _dom_classes=["pe-preset"], disabled=preset_disabled),
        "other": m("AnyModel", figure={}),
        "preview": m("AnyModel", figure={"data": [{}] * traces, "layout": {}}),
        "bridge": m("AnyModel", base_url=""),
    }
    if drop:
        del s[drop]
    return s


def test_first_view_needs_the_four_panels_the_preview_traces_and_the_preset_menu():
    ok = lc.first_view(_states(), top="top")
    assert ok == {"panels": list(lc.PANELS), "preview_traces": 2, "preset": True, "top": True, "ok": True}
    assert not lc.first_view(_states(), top="elsewhere")["ok"]
    no_motion = lc.first_view(_states(drop="mot"))
    assert no_motion["panels"] == ["pe-body", "pe-equilibria", "pe-section"] and not no_motion["ok"]
    assert not lc.first_view(_states(preset_disabled=True))["ok"]
    assert not lc.first_view(_states(traces=0))["ok"]
    assert lc.body_preview_id(_states()) == "preview"
    assert lc.bridge_id(_states()) == "bridge"
    assert lc.model_names(_states())["AnyModel"] == 3


def test_a_light_page_reaches_the_first_view_on_a_preheated_kernel():
    """A served dashboard with one preheated kernel: the page's GET takes it, the kernel websocket delivers the
    widget states of the first view, and the page sends what a Chromium page sends (``--validate`` checked the
    same list against Chromium's frames)."""
    import bench_class_load as bcl
    import pe_browser as pb

    server = pb.voila_server("test-light-client.log", pool_size=1)
    try:
        server.wait_ready(timeout=120)
        # the pool kernel started and waiting (a page that comes earlier gets a kernel of its own from Voila)
        assert bcl.wait_quiet(server.kernel_pids, want=1, timeout=90) >= 0

        async def one():
            page = await lc.open_page(server.url, timeout=90)
            for _ in range(300):  # the kernel's first autosave (every 3 s) and the page's answer; at most 30 s
                if page.error or "comm_msg:custom:autosaved" in page.sent:
                    break
                await asyncio.sleep(0.1)
            pids = {bcl.kernel_of(p): p for p in server.kernel_pids()}
            await page.close()
            return page, pids

        # in a thread of its own: an earlier test in this worker may leave an event loop running in this one
        # (then asyncio.run raises "cannot be called from a running event loop": seen in CI's full run)
        with concurrent.futures.ThreadPoolExecutor(1) as ex:
            page, pids = ex.submit(asyncio.run, one()).result()
        log = server.log_text()
    finally:
        server.stop()
    assert page.error is None, page.error
    assert page.status == 200 and page.kernel_id in pids
    assert "Using pre-heated kernel: " + page.kernel_id in log
    assert page.view["ok"] and page.view["panels"] == list(lc.PANELS) and page.view["preview_traces"] > 0
    assert page.top_model is not None and page.view["top"]
    assert page.names["TabModel"] == 1 and page.names["AnyModel"] >= 2 and page.n_models > 50
    assert page.sent == ["kernel_info_request", "comm_open:jupyter.widget.control", "comm_msg:request_states",
                         "comm_close", "comm_msg:update:base_url", "comm_msg:custom:drawn",
                         "comm_msg:custom:autosaved"]
    assert page.received["comm_msg:update_states"] == 1 and page.states_bytes > 10_000
    split = page.split()
    assert all(v is not None and v >= 0 for v in split.values()), split
    assert page.t0 <= page.t_config <= page.t_html <= page.t_ws <= page.t_states <= page.t_view


@pytest.mark.parametrize("kind", ["even", "poisson"])
def test_arrivals_fall_in_the_window(kind):
    import bench_class_load as bcl

    at = bcl.arrivals(30, 60.0, kind, seed=23)
    assert len(at) == 30 and at == sorted(at) and 0 <= at[0] and at[-1] < 60.0
    assert bcl.arrivals(30, 60.0, kind, seed=23) == at
    if kind == "even":
        assert at[1] - at[0] == pytest.approx(2.0)
