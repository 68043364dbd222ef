-- Headless Neovim: start `sleuth serve` as an LSP client, wait for its index, run
-- vim.lsp.buf.workspace_symbol() and write the quickfix list it fills to $OUT.
local root, out = os.getenv("WS"), os.getenv("OUT")
local id = vim.lsp.start_client({
  cmd = { os.getenv("SLEUTH_COMMAND"), "serve" },  -- the installed command, as the README sets Neovim up
  root_dir = root,
  workspace_folders = { { uri = vim.uri_from_fname(root), name = "ws" } },
  init_options = { cacheDir = os.getenv("CACHE") },
})
vim.cmd("edit " .. root .. "/src/users.py")
vim.lsp.buf_attach_client(0, id)
local client = vim.lsp.get_client_by_id(id)
assert(vim.wait(30000, function() return client.initialized end, 50), "the server did not initialize")
local ready = false
assert(vim.wait(60000, function()
  if not ready then
    local res = client.request_sync("workspace/executeCommand", { command = "sleuth.index.status", arguments = { {} } }, 5000, 0)
    ready = res and res.result and res.result.state == "ready"
  end
  return ready
end, 200), "the index never became ready")
vim.lsp.buf.workspace_symbol(os.getenv("QUERY"))
assert(vim.wait(20000, function() return #vim.fn.getqflist() > 0 end, 50), "workspace_symbol filled no quickfix list")
local lines = {}
for _, item in ipairs(vim.fn.getqflist()) do
  table.insert(lines, string.format("%s:%d:%d: %s", vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ":t"), item.lnum, item.col, item.text))
end
vim.fn.writefile(lines, out)
client.stop()
vim.cmd("qa!")
