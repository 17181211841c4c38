"""``ferry bench``: measured (and, without a GPU, predicted) answers to "where does the GPU pay off?".

Modules: :mod:`~torchferry.bench.profiles` (datasheet figures, cited),
:mod:`~torchferry.bench.model` (the prediction model), :mod:`~torchferry.bench.matmul`
and :mod:`~torchferry.bench.transfer` (the experiments), :mod:`~torchferry.bench.report`
(tables, JSON, CSV, plots); the CLI is :mod:`torchferry.cli.bench`.  Importing this
package imports no torch.
"""
