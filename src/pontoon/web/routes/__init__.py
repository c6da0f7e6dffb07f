"""The server's REST routes, one ``APIRouter`` per resource (FastAPI's larger-application layout)."""
