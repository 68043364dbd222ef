"""``sleuth mcp``: the Model Context Protocol door onto the same core as the language server.

* :mod:`sleuth.mcp.tools` — the native searches as MCP tools: input schemas generated from the
  commands' argument tables, output schemas, the compact text rendering, the output budget and
  paging (pure Python, no SDK);
* :mod:`sleuth.mcp.server` — the official SDK's ``MCPServer`` wired to a :class:`sleuth.core.Session`:
  roots as the sandbox in both protocol eras, progress, cancellation, tool errors;
* :mod:`sleuth.mcp.main` — the command line (stdio, or streamable HTTP on loopback with the token of
  :mod:`sleuth.core.secret`).
"""
