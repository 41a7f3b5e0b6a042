"""The tool registry served to MCP clients, with the grants, audit and confirmation of every other caller.

``server`` answers tools/list and tools/call through the executor; ``access`` decides who may
act as which agent; ``http`` serves Streamable HTTP at ``/mcp/agents/<agent_id>/`` in the
project's ASGI application; ``manage.py mcp`` serves stdio.
"""
