-- Neovim's own LSP client attached to `ferry server`: open a file, wait for its
-- diagnostics, apply the preferred quick fix, save.  Results go to $FERRY_NVIM_OUT.
local out = assert(io.open(os.getenv("FERRY_NVIM_OUT"), "w"))
local file = os.getenv("FERRY_NVIM_FILE")
local python = os.getenv("FERRY_NVIM_PYTHON")

vim.cmd("edit " .. vim.fn.fnameescape(file))
local bufnr = vim.api.nvim_get_current_buf()
local id = vim.lsp.start_client({
  name = "ferry",
  cmd = { python, "-m", "torchferry", "server" },
  root_dir = vim.fn.fnamemodify(file, ":h"),
})
vim.lsp.buf_attach_client(bufnr, id)

local function finish(status)
  out:write(status .. "\n")
  out:close()
  vim.lsp.stop_client(id)
  vim.cmd("qa!")
end

if not vim.wait(30000, function() return #vim.diagnostic.get(bufnr) > 0 end, 20) then
  finish("no diagnostics")
  return
end
for _, d in ipairs(vim.diagnostic.get(bufnr)) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or "?"
  out:write(string.format("diagnostic %s %d %s\n", code, d.lnum + 1, d.source or "?"))
end

local params = vim.lsp.util.make_range_params()
params.range = { start = { line = 2, character = 0 }, ["end"] = { line = 2, character = 0 } }
params.context = { diagnostics = {} }
local replies = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", params, 30000) or {}
for _, reply in pairs(replies) do
  for _, action in ipairs(reply.result or {}) do
    out:write("action " .. action.title .. "\n")
    if action.isPreferred and action.edit then
      vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
      vim.cmd("write")
    end
  end
end
finish("done")
