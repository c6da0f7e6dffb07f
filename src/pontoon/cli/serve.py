"""``pontoon serve``: the table server and its web page on uvicorn (docs/server.md)."""

from __future__ import annotations

import ipaddress
import os
import secrets
import socket

import typer

from pontoon.cli.dbopts import check_db
from pontoon.errors import PontoonError


class ServeError(PontoonError):
    """A bad --host, --port or server option."""


def _check_host(host: str) -> None:
    try:
        ipaddress.ip_address(host)
        return
    except ValueError:
        pass
    if host != "localhost":
        try:
            socket.getaddrinfo(host, None)
        except (OSError, UnicodeError):
            raise ServeError(
                f"--host {host!r}: not an IP address or a name this machine can resolve"
            ) from None


MAX_ADVERTISE = 512  # characters in --advertise (a scheme, a host, a port and perhaps a path)
SECRET_BYTES = (16, 1024)  # PONTOON_SECRET: at least 128 bits, as UTF-8 bytes


def _check_advertise(advertise: str, lease_ttl: float) -> None:
    """--advertise is where other processes send a client: an http(s) URL with a host, one line of
    printable text (it is stored in the lease row and shown to clients); it means nothing without
    leases (issue 29 item 7)."""
    if not advertise:
        return
    if not lease_ttl:
        raise ServeError("--advertise is the address other processes send clients to: it needs --lease-ttl")
    if len(advertise) > MAX_ADVERTISE:
        raise ServeError(f"--advertise: an address of {len(advertise)} characters: at most {MAX_ADVERTISE}")
    if not advertise.isprintable() or any(c.isspace() for c in advertise):
        raise ServeError(
            f"--advertise {advertise!r:.80}: an address is one word of printable text (no spaces or line breaks)"
        )
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(advertise)
        port_ok = parts.port is None or parts.port > 0
    except ValueError:
        port_ok = False
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname or not port_ok:
        raise ServeError(
            f"--advertise {advertise!r:.80}: give an http:// or https:// URL with a host, e.g. http://10.0.0.5:8001"
        )
    if parts.query or parts.fragment or parts.username is not None:
        raise ServeError(
            f"--advertise {advertise!r:.80}: give the address alone (no user, ?query or #fragment), e.g. http://10.0.0.5:8001"
        )


def _secret() -> str | None:
    """``PONTOON_SECRET``: the token secret several processes share; 16 to 1024 bytes of UTF-8
    text (None where it is not set: a random one per process)."""
    secret = os.environ.get("PONTOON_SECRET")
    if secret is None:
        return None
    try:
        size = len(secret.encode("utf-8"))
    except UnicodeEncodeError:
        raise ServeError(
            "PONTOON_SECRET is not UTF-8 text: give 16 to 1024 bytes of text (e.g. 32 random hex digits)"
        ) from None
    low, high = SECRET_BYTES
    if not low <= size <= high:
        raise ServeError(
            f"PONTOON_SECRET has {size} bytes: give {low} to {high} (e.g. 32 random hex digits: "
            "python -c 'import secrets; print(secrets.token_hex(16))')"
        )
    return secret


def serve_command(
    db: str = typer.Option(
        None,
        "--db",
        help="history store URL (sqlite:///path or postgresql://...; "
        "default $PONTOON_DB or the user data directory, as pontoon play)",
    ),
    memory: bool = typer.Option(
        False, "--memory", help="keep everything in memory (nothing survives a restart)"
    ),
    host: str = typer.Option("127.0.0.1", "--host", help="address to listen on"),
    port: int = typer.Option(8000, "--port", help="port to listen on (1 to 65535)"),
    turn_timeout: float = typer.Option(30.0, "--turn-timeout", help="seconds before the default action"),
    grace: float = typer.Option(60.0, "--grace", help="seconds a disconnected player's seat is kept"),
    result_pause: float = typer.Option(
        3.0,
        "--result-pause",
        help="seconds a round's results stay on the felt (0 to 30; a host may change it)",
    ),
    lease_ttl: float = typer.Option(
        0.0,
        "--lease-ttl",
        help="several processes on one database: seconds a "
        "table's lease lasts without a heartbeat (0: this process serves every table)",
    ),
    writer: str = typer.Option(
        "process",
        "--writer",
        help="the history store's group commit: process (a writer process beside the server, off its "
        "interpreter lock) or thread (a thread of the server)",
    ),
    advertise: str = typer.Option(
        "",
        "--advertise",
        help="with --lease-ttl: the address other processes send clients to (default http://HOST:PORT)",
    ),
    site: list[str] = typer.Option(
        [],
        "--site",
        help="the public origin of the page, e.g. https://pontoon.example (repeatable): its host is "
        "accepted in Host and it in Origin (default: loopback and IP addresses only; docs/accounts.md)",
    ),
    allowed_host: list[str] = typer.Option(
        [], "--allowed-host", help="another host name accepted in Host (repeatable; '*': any)"
    ),
    cookie_secure: str = typer.Option(
        "auto",
        "--cookie-secure",
        help="the session cookie's Secure flag: auto (over TLS, or a trusted proxy's "
        "X-Forwarded-Proto: https, or an https --site), always, never",
    ),
    trusted_proxy: str = typer.Option(
        "",
        "--trusted-proxy",
        help="addresses of reverse proxies whose X-Forwarded-For/-Proto are believed (comma list; "
        "default: none)",
    ),
    request_timeout: float = typer.Option(
        5.0, "--request-timeout", help="seconds a client has to send a request's headers and body"
    ),
    ws_deflate: bool = typer.Option(
        False,
        "--ws-deflate",
        help="compress WebSocket messages (permessage-deflate): fewer bytes, more CPU per connection",
    ),
    test_mode: bool = typer.Option(
        False,
        "--test-mode",
        help="TEST server: tables may be made with a fixed seed (a predictable shuffle, ruling 36); "
        "such tables are marked as test tables for everyone",
    ),
    custom_rules: bool = typer.Option(
        False, "--custom-rules", help="allow tables of a rules file (marked, with their exact house edge)"
    ),
    max_player_edge: float = typer.Option(
        0.0,
        "--max-player-edge",
        help="with --custom-rules: refuse rules whose exact player edge (main game or a side bet, a "
        "fraction of the wager) is above this (0: no rules the player beats)",
    ),
    idle_timeout: float = typer.Option(
        1800.0, "--idle-timeout", help="seconds without a join, wager or action before a table is closed"
    ),
    tables_per_address: int = typer.Option(
        10, "--tables-per-address", help="open tables made from one address"
    ),
    tables_per_account: int = typer.Option(3, "--tables-per-account", help="open tables made by one account"),
    seats_per_account: int = typer.Option(6, "--seats-per-account", help="tables one account sits at"),
    seats_per_address: int = typer.Option(24, "--seats-per-address", help="seats taken from one address"),
    bot_workers: int = typer.Option(2, "--bot-workers", help="threads deciding bots' moves (1 to 256)"),
    hint_workers: int = typer.Option(1, "--hint-workers", help="threads working out hints (1 to 256)"),
    hint_queue: int = typer.Option(
        8, "--hint-queue", help="hints waiting for a thread; past that one is answered busy (0 to 100000)"
    ),
    edge_workers: int = typer.Option(
        1, "--edge-workers", help="threads working out custom tables' exact edges (1 to 64)"
    ),
    edge_queue: int = typer.Option(
        4, "--edge-queue", help="custom tables waiting for their edge; past that 429 (0 to 10000)"
    ),
) -> None:
    """Serve the tables and the web page (open http://HOST:PORT/ in a browser)."""
    if not 1 <= port <= 65535:
        raise ServeError(f"--port {port}: a port is a whole number from 1 to 65535")
    _check_host(host)
    if not 0.1 <= turn_timeout <= 3600 or not 0 <= grace <= 86400:
        raise ServeError("--turn-timeout is 0.1 to 3600 seconds, --grace 0 to 86400 seconds")
    if not 0 <= result_pause <= 30:
        raise ServeError(f"--result-pause {result_pause:g}: accepted 0 to 30 seconds")
    if memory and db is not None:
        raise ServeError("--db and --memory exclude each other: give one")
    if lease_ttl and not 1 <= lease_ttl <= 3600:
        raise ServeError(f"--lease-ttl {lease_ttl}: 0 (no leases) or 1 to 3600 seconds")
    if writer not in ("process", "thread"):
        raise ServeError(f"--writer {writer!r}: accepted are process and thread")
    if not -1 <= max_player_edge <= 1:
        raise ServeError(
            f"--max-player-edge {max_player_edge}: a fraction of the wager, -1 to 1 (0.01 is 1%)"
        )
    if not 1 <= idle_timeout <= 7 * 86400:
        raise ServeError(f"--idle-timeout {idle_timeout}: 1 to 604800 seconds")
    for flag, n in (
        ("--tables-per-address", tables_per_address),
        ("--tables-per-account", tables_per_account),
        ("--seats-per-account", seats_per_account),
        ("--seats-per-address", seats_per_address),
    ):
        if not 1 <= n <= 100_000:
            raise ServeError(f"{flag} {n}: a whole number from 1 to 100000")
    from pontoon.web.workers import check_lanes  # (LaneError: one line, exit 2)

    check_lanes(
        bot_workers=bot_workers,
        hint_workers=hint_workers,
        hint_queue=hint_queue,
        edge_workers=edge_workers,
        edge_queue=edge_queue,
    )
    if lease_ttl and memory:
        raise ServeError("--lease-ttl needs the history store: leave --memory out")
    _check_advertise(advertise, lease_ttl)
    secret = _secret()
    if not memory:
        check_db(db, writer=True)
    from pontoon.web.site import Security

    security = Security(  # a bad --site, --cookie-secure or --request-timeout: SiteError, one line, exit 2
        sites=tuple(site),
        allowed_hosts=tuple(h.strip().lower() for h in allowed_host),
        cookie_secure=cookie_secure,
        trusted_proxies=trusted_proxy.strip(),
        request_timeout_s=request_timeout,
    )
    try:  # a port in use or an address not of this machine: one line, exit 2
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as err:
        raise ServeError(f"cannot listen on {host}:{port}: {err.strerror or err}") from None
    import uvicorn

    from pontoon.web.app import create_app
    from pontoon.web.hosting import Settings
    from pontoon.web.transport import uvicorn_options

    settings = Settings(
        turn_timeout_s=turn_timeout,
        grace_s=grace,
        result_pause_s=result_pause,
        secret=secret,
        security=security,
        test_mode=test_mode,
        custom_rules=custom_rules,
        max_player_edge=max_player_edge,
        idle_table_s=idle_timeout,
        tables_per_address=tables_per_address,
        tables_per_account=tables_per_account,
        seats_per_account=seats_per_account,
        seats_per_address=seats_per_address,
        ws_deflate=ws_deflate,
        bot_workers=bot_workers,  # the analysis lanes (web/workers.py)
        hint_workers=hint_workers,
        hint_queue=hint_queue,
        edge_workers=edge_workers,
        edge_queue=edge_queue,
        tune_gc=True,  # this process is the server's: its collector tuned at start-up (web/transport.py)
    )
    if test_mode:
        typer.echo("pontoon serve: TEST MODE: tables may take a fixed seed (predictable shuffles)", err=True)
    persistence = None
    if not memory:
        from pontoon.history import open_store
        from pontoon.web.store_persistence import StorePersistence

        store = open_store(db)  # a bad URL: HistoryError, one line, exit 2
        leases = None
        if lease_ttl:
            from pontoon.history.leases import Leases

            owner = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
            here = f"[{host}]" if ":" in host else host  # an IPv6 address is bracketed in a URL
            leases = Leases(store, owner, advertise or f"http://{here}:{port}", ttl=lease_ttl)
        persistence = StorePersistence(
            store, leases=leases, writer=writer
        )  # (its start: HistoryError, exit 2)
    app = create_app(settings, persistence)
    try:
        uvicorn.run(
            app,
            host=host,
            port=port,
            log_level="info",
            **uvicorn_options(settings),  # the guarded protocol, the trusted proxies, the frame cap
        )
    except OSError as err:
        raise ServeError(f"cannot listen on {host}:{port}: {err.strerror or err}") from None
