"""The British banker game (003) solved heads-up (issue 27): ``game`` (the exact model), ``values`` (exact
values against given strategies, both best responses), ``solve`` (CFR+ and its exploitability),
``infosets`` (information sets from the engine's seat views), ``enumerate`` (every deal of a reduced pack
through the engine), ``report`` (``pontoon analyze --rules british|shoot``). docs/analysis.md says how."""
