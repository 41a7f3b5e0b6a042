"""Check a case file against the format and the demo data: python validate.py FILE"""
import json, re, sys
from collections import Counter
from pathlib import Path
here = Path(__file__).parent
demo = (here / "demo_data.md").read_text()
tools_md = (here / "tools.md").read_text()
tools = {}
for block in tools_md.split("\n## ")[1:]:
    name = block.split("\n", 1)[0].strip()
    schema = json.loads(block.split("```json\n", 1)[1].split("\n```", 1)[0])
    tools[name] = set(schema.get("properties", {}))
granted = {}
for m in re.finditer(r"^- id \d+ \*\*(.+?)\*\* \(.*?\): (.*)$", demo, re.M):
    granted[m.group(1)] = set(m.group(2).split(", "))
def names(section, field):
    out = set()
    for block in demo.split("\n## ")[1:]:
        if block.startswith(section):
            for line in block.splitlines()[1:]:
                if line.startswith("- {"):
                    out.add(str(json.loads(line[2:]).get(field)))
    return out
entities = {"agent": set(granted), "fund": names("funds.Fund", "fund_name"), "bounty": names("bounties.Bounty", "title"),
            "shop_item": names("city.ShopItem", "name"), "building": names("city.Building", "name")}
sellers = set()
for block in demo.split("\n## ")[1:]:
    if block.startswith("city.MarketOrder"):
        ids = {json.loads(l[2:])["id"]: json.loads(l[2:]) for l in block.splitlines()[1:] if l.startswith("- {")}
        for o in ids.values():
            if o.get("status") == "open":
                sellers.add(o["seller_id"])
agent_ids = {int(m.group(1)): m.group(2) for m in re.finditer(r"^- id (\d+) \*\*(.+?)\*\*", demo, re.M)}
entities["market_order"] = {agent_ids[s] for s in sellers}
FAM = {"ra": "resident action", "rq": "resident question", "fa": "fund assistant", "fd": "front desk", "na": "must not act"}
WANT = {("ra", "zh"): 30, ("ra", "en"): 30, ("rq", "zh"): 12, ("rq", "en"): 12, ("fa", "zh"): 22, ("fa", "en"): 22,
        ("fd", "zh"): 16, ("fd", "en"): 16, ("na", "zh"): 20, ("na", "en"): 20}
errors = []
data = json.loads(Path(sys.argv[1]).read_text())
cases = data["cases"]
seen = set(); fams = Counter(); kinds = Counter()
def check_args(cid, agent, call):
    tool = call.get("tool")
    if tool not in tools: errors.append(f"{cid}: unknown tool {tool}"); return
    if tool not in granted.get(agent, ()): errors.append(f"{cid}: {agent} does not hold {tool}")
    for key, value in call.get("args", {}).items():
        if key not in tools[tool]: errors.append(f"{cid}: {tool} has no parameter {key}")
        if isinstance(value, dict):
            (marker, v), = value.items()
            if marker in entities and v not in entities[marker]: errors.append(f"{cid}: no demo {marker} named {v!r}")
            elif marker not in entities and marker not in ("text", "contains", "fragment_of"): errors.append(f"{cid}: unknown marker {marker}")
for c in cases:
    cid = c.get("id", "?")
    m = re.fullmatch(r"{{PREFIX}}-(zh|en)-(ra|rq|fa|fd|na)-(\d\d)", cid)
    if not m: errors.append(f"{cid}: bad id"); continue
    if cid in seen: errors.append(f"{cid}: duplicate id")
    seen.add(cid)
    lang, fam = m.group(1), m.group(2)
    fams[(fam, lang)] += 1
    if c.get("lang") != lang: errors.append(f"{cid}: lang")
    if c.get("family") != FAM[fam]: errors.append(f"{cid}: family should be {FAM[fam]!r}")
    if c.get("agent") not in granted: errors.append(f"{cid}: unknown agent {c.get('agent')}")
    if not isinstance(c.get("message"), str) or not c["message"].strip(): errors.append(f"{cid}: message")
    if "turns" in c and not (isinstance(c["turns"], list) and all(isinstance(t, str) for t in c["turns"])): errors.append(f"{cid}: turns")
    e = c.get("expect", {}); kinds[e.get("kind")] += 1
    if fam == "na" and e.get("kind") != "none": errors.append(f"{cid}: must-not-act cases expect none")
    if e.get("kind") == "call":
        check_args(cid, c.get("agent"), e)
        for alt in e.get("or", []): check_args(cid, c.get("agent"), alt)
    elif e.get("kind") not in ("ask", "none"): errors.append(f"{cid}: expect.kind")
for key, n in WANT.items():
    if fams[key] != n: errors.append(f"{key}: {fams[key]} cases, want {n}")
if kinds != Counter({"call": 130, "none": 40, "ask": 30}): errors.append(f"kinds {dict(kinds)}, want call 130, ask 30, none 40")
print("\n".join(errors) if errors else f"OK: {len(cases)} cases")
