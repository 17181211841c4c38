"""A model called on inputs that are not where the model is.

## What it does
Flags a call `model(x)` when, in one scope,

* the model was moved to a device (`model = Net().to(device)`, `model.cuda()`; in a
  module's method, a submodule of `self`, where the run moves an instance of the class or
  builds and moves one of a module class whose `__init__` makes it a submodule,
  `self.encoder = Encoder(...)` of `Transformer(...).to(device)`, also by adding it to a
  registered container of its own, `self.blocks.append(Block(...))`, `.extend([...])`,
  `.insert(i, ...)` or `self.blocks[k] = Block(...)` where every binding of `self.blocks`
  in the class is `nn.ModuleList(...)` or `nn.ModuleDict(...)`; `self` of a hook of a
  `LightningModule` that Lightning's trainer calls once it has put the module where it runs,
  `on_train_start`, `validation_epoch_end`, `on_validation_epoch_end`, the `*_step` hooks,
  not `setup` nor `on_fit_start`, where this file or one of the run that imports it builds
  a `Trainer` that may use an accelerator, `gpus=` given, `accelerator="gpu"`; also a
  parameter such a hook hands `self` to, `sample_text(n, self)` of a helper that calls
  `network(x)`) and `x` is a
  tensor built right there on the CPU (`torch.from_numpy(...)`, `torch.tensor(...)`, a
  factory without `device=`) and never moved, under its own name or one it was copied to
  (`x = img`, `input = input`: the same tensor, followed back three names deep); or
* `x` was moved to a device (`x = x.to(device)`, `img.cuda()`) and the model, constructed
  in the same file or by a function of another file of the run that returns it as it built
  it (`d, g = nets.build(device)` of `d = Net().train()` ... `return d, g`: the name read
  only by the `return`, given to nothing; reported at the call, where the model meets its
  input, the construction cited) (`Net(...)`, `torchvision.models.resnet50(...)`, a transform of
  torchaudio that holds tensors, `torchaudio.transforms.Resample(...)`'s kernel or a
  spectrogram's window and filter bank; not a transform of
  `torchvision.transforms` that holds no tensor of its own, `T.Normalize(mean, std)` or a
  `Compose` of such, which computes where its input is; an instance of a class of another
  package, not torch's or torchvision's nor a class of the run, only when the file uses it
  as a module, `miner.eval()`, `miner.parameters()`: `miners.MultiSimilarityMiner()` that
  is only called may hold no weights; nor an instance of a class of the run known to hold
  none: no parameter or buffer registered, no base outside the run but `nn.Module`, every
  attribute plain data, an object that is no module or a submodule without weights --
  also a `torch.nn` container `__init__` builds from its parameter,
  `self.transforms = nn.ModuleList(transforms)`, given a list of such modules written out,
  `Compose([SpliceOut(...)])`: a transform that draws what it needs on its input's
  device), is never moved,
  wrapped or handed to anything that could move it anywhere in the file (a bare `model`
  statement does nothing; a method of its module class of the run that moves nothing and
  hands the module itself to nothing, nor calls a method that does, `model.log_probs(x)`,
  leaves it where it is, and so does a function of the run whose summary puts its
  parameter nowhere though it may write values into it: `disable_stats(model)` of another
  file running `model.apply(_disable)` of a nested `_disable` that only tests each
  submodule, `isinstance(m, _BatchNorm)`, and sets a constant or another of its own
  attributes on it, `m.momentum = 0`, `m.backup = m.momentum`; and an instance of a plain
  class of the run built in the file and called, `log(model, loss)` of `log = Log()`, whose
  `__call__` puts it nowhere, reading only numbers), nor put on a
  device by its own `__init__` (`self.lstm = nn.LSTM(...).cuda()`); the model may be called
  directly or through such a method that hands its argument to the module's weights
  (`model.log_probs(data)` of a `log_probs` that runs `self(x)` or `self.forward(x)`); or
* (from the device-flow analysis) the model is on a device the code chose -- moved in the
  calling scope (also by a loop over a list written out whose body moves its name in place
  by a statement of its own, `for net in [self.actor, self.critic]: net.to(device)`: each
  module listed is moved; an item that may be a tensor is left as it was), built by a constructor (of a class of this file or of another file of the
  run) whose `__init__` moves every weighted layer to a
  device it is given (`Encoder(vocab, device=device)` of `self.embed = nn.Embedding(n,
  d).to(device)`, `self.to(device)`, also written `self = self.to(device)`: `Module.to`
  moves the module in place and returns it; also a subclass whose `__init__` runs a base
  class's of the run, `super().__init__(...)`, and then moves itself whole, `self.to(device)`,
  which takes the base's layers along; the parameter's default, `device="cuda"`, where
  the call gives none), or a parameter that every call of the run passes moved
  (`train(model.to(device), loader)`, in this file or in the files that import it),
  followed through the callers' own parameters --
  and its first argument `x` is an item of a DataLoader's batch (also of a loader that
  every call of the file hands to the function, `train(model, train_loader)`, and of a
  legacy torchtext iterator given no `device`, `batch.text`) that is never moved, while
  another item of the same batch is (`target = target.to(device)` ... `model(data)`; not
  when the loader's dataset is of a class of the run whose `__getitem__` moves what it
  returns to a device, `return x.to(self.device), y`; the
  item may reach the model through a method of the class, defined once in the file, that
  hands its first argument unchanged to the model as the model's first argument:
  `self.step(data)` with `return self.model(inputs)`), or
  the loader, built in this file or by a function of another file of the run that returns
  it (`loader = utils.get_loader(n)`, its `DataLoader(...)` and dataset read in that
  file), or kept by an instance of a plain class of the run that built it in its methods
  (`for batch in dataset.test` of `self.test = DataLoader(test_set, ...)` in `Cifar`'s
  `__init__`; not an attribute the file assigns from outside the class, nor one another
  method may store another loader in), or an attribute of a record built with keywords
  (`for x, y in data.train` of `data = EasyDict(train=loader)` or of a function of the
  run that returns one; also `types.SimpleNamespace`, `argparse.Namespace`; not an
  attribute that a file the record may reach writes, `data.train = ...`, nor any where one
  writes attributes by computed names, `setattr(d, k, v)`),
  yields what a dataset of `torchvision.datasets` gives
  (a `transform=` of torchvision that makes its tensors on the CPU, `ToTensor()` or a
  `Compose` holding one, and no `collate_fn`; or one of several such datasets, one per arm
  of a branch, when every binding of the dataset's name in the loader's scope is a plain
  assignment of one, or of `A(...) if c else B(...)` of two:
  `if opt.dataset == "mnist": dataset = dset.MNIST(...)` ... `else: dataset =
  dset.FakeData(...)`); a
  later argument may be wanted on the CPU (`decoder(features, captions, lengths)`, whose
  `lengths` go to `pack_padded_sequence`) and is not checked; or no item of the batch is
  moved, but another call of the file gives the same model (the same move of it) an item
  of a batch it moved first (`train()` moves its batches, `validation()` calls
  `self.model(input)` on `next(iter(self.valid_dataloader))`; the model's method that hands
  that argument to its weights, `model.stn(data)` of a `stn` that runs
  `self.localization(x)`, counts as a call of the model), in a file none of whose
  loaders is given a `collate_fn` and none of whose `__getitem__` methods moves a tensor; or
* (from the device-flow analysis) the model is on a device the code chose, as above,
  loaded there (`torch.load(f, map_location=device)`) or
  through the class it is an attribute of (`self.model.to(device)` in `__init__`, the
  call `self.model(x)` in another method), or given to a plain class (a predictor, a
  trainer, an evaluator) that keeps it (`self.model = model` in its `__init__`, its own or
  a base's) by every construction of the class in the run, which are the calls of that
  `__init__` (`Predictor(net.to(device))`, `p = Predictor(model=net)` after `net =
  Net().cuda()`, `Predictor(build_model(name))` of a factory that moves it; in the class's
  file or in the files that import it), and its input (the first argument, else the
  first keyword argument: `model(input_ids=dummy)`, else the one mapping of
  `model(**inputs)`; or the prompt of `model.generate(...)`, which runs the model on it
  where the model is, when no class of the run defines that `generate` (transformers'
  `GenerationMixin`): its first argument, else `input_ids=` or `inputs=`, else the one
  mapping of `model.generate(**inputs, max_new_tokens=n)`; or, for a method of a module
  class of the run, the argument of the first of its parameters that the method hands to
  the module's weights: to one of the module's layers with weights, to the module itself
  (`self(x)`, `self.forward(x)`) or to another of its methods that does so,
  `model.decode(z)`, `vae.sample(n, labels)` whose `sample` runs `self.dec(torch.cat([z,
  labels], 1))`; not a parameter it only converts or gives a layer without weights; and in
  a method of a module class, the first argument of `self.forward(x)`, which runs the
  module as `self(x)` does) is a tensor the run made on the CPU, in this file or in another that
  a function or class of the run hands it from (`corpus.train` of a `Corpus` of the run
  whose `__init__` stores a tensor it made; `get_batch(source, i)` returning
  `source[i:j]` of such a tensor)
  (`torch.from_numpy(...)`, `torch.full(...)`, a factory without `device=`, a torchvision
  `ToTensor()` or a `Compose` of torchvision transforms holding one, the waveform of
  `torchaudio.load(path)`, an image of `torchvision.io.read_image(path)` or a decoder not
  given `device=`, the `"image"` of what
  albumentations' `ToTensorV2()` or a `Compose` of albumentations transforms ending with it
  returns, or an item of a
  dataset of `torchvision.datasets` whose one transform is such: `test_data[0][0]`; or an
  item of a batch of torch's `DataLoader` over a `TensorDataset` of such tensors, collated
  by torch's default (no `collate_fn`, or `default_collate`, and no `**` mapping that may
  hold one: a mapping the file builds with literal keys and never changes after, `kwargs =
  {"num_workers": 1, "pin_memory": True} if use_cuda else {}`, counts), even where no other
  item of the batch is moved, and its `loader.dataset.tensors[i]` (also of two such datasets
  of different lengths joined, `TensorDataset(x, y) if cond else TensorDataset(x)`: any
  position is on the CPU; and such a batch is a list, as torch's collate makes it, so
  `if isinstance(batch, list): batch = batch[0]` surely runs); each position of such a batch is
  where its tensor is, so a `TensorDataset(x, y.to(device))` gives a CPU item first and a
  moved one second, the moved position read so only for a loader that collates in the
  calling process, `num_workers` absent or 0 and no `pin_memory`) and
  never moved (also the first item of `model(*inputs)`, or the item `inputs[k]` of a
  parameter, a constant `k`, of a tuple written out there or by every call of the run,
  through the callers' own parameters: `model(*data)` in `evaluate(model, data)`, called
  as `evaluate(net, (feats, adj))` after `feats, adj = load(device)` whose return leaves
  `feats` on the CPU; or an item that an unpacking without a starred name takes from a
  parameter as it came in, `states, actions = experiences` in `learn(self, experiences)`,
  when every call of the run passes a tuple of as many items whose item there is such a
  tensor, held by the caller or handed on whole through its own parameters:
  `self.learn(self.memory.sample())` of `self.memory = ReplayBuffer(...)` of another file,
  whose `sample` returns `(torch.from_numpy(s).float(), ...)`; a tuple of another length
  raises at the unpacking; an item made in another file, one the calling file imports, is
  reported at its make, in that file, where the fix goes, with the call that hands the
  tuple in, the model and their meeting as evidence); or what a call given `return_tensors="pt"` and no `device=` returned (a
  tokenizer or processor of transformers makes those tensors on the CPU, one built in the
  file or handed in as a parameter: `inputs = tokenizer(texts, return_tensors="pt")`, `tokenizer.encode(text,
  return_tensors="pt")`), bound to a name nothing else binds and never moved, not even in
  place (`inputs.to(device)` as a statement moves a `BatchEncoding`), or an item of what
  such a call returned (`enc["input_ids"]`, or a list of those joined by `torch.cat`).  In a loop, the
  call's first run counts too: a tensor made on the CPU before the loop and replaced in it
  (`token = torch.cat([token, new], 0)` after `lm(token)`) meets the model on the first
  round, when every round runs the call (no test around it in the loop reads a name the
  loop binds) and the loops around it have no `continue`, nor a `break` of a loop inside
  the outermost one (a `break` of the outermost loop ends it: the call ran on the first
  round or never, `while True: logits = dec(cur, h); ...; if done: break`); or
* (from the device-flow analysis) the input is moved to a device the code chose, or made
  there by a factory given `device=` such a device (`z = torch.randn(n, nz, 1, 1,
  device=device)` of `device = torch.device("cuda" if ... else "cpu")`, or
  `device="cuda"`; not a device known only by its name), or by a legacy typed
  constructor the code picks by the accelerator's availability (`state =
  FloatTensor(board)` of `FloatTensor = torch.cuda.FloatTensor if use_cuda else
  torch.FloatTensor`, or the CUDA type itself), or lives
  where a parameter does that every call of the file passes so moved (`h = x * 2` in
  `predict(self, x)`, called as `net.predict(x.to(device))`; in a loop, on its first run
  as above; a value moved there whose kind the analysis does not know, `s = s.to(device)`
  of a parameter, counts where a use says it is a tensor: the model is a layer of
  `torch.nn` with weights that takes tensors only, `nn.Conv1d(1, 1, 3)`, not a container or
  a recurrent layer, or the function whose parameter it becomes uses that parameter as a
  tensor, `x.view(1, 1, -1)`), or is the first item of `model(*inputs)`, or the item `inputs[k]` (a
  constant `k`) of a parameter, of a tuple written out there or by every call of the run,
  in the caller's own function or handed on through the parameters of the calls between
  (`model(*data)` in `evaluate(model, data)`, called as `evaluate(net, (feats, adj))`
  after `feats, adj = load(device)` whose return moves both; or an item unpacked by names
  from a tuple parameter, `states, actions = experiences`, whose position every call of
  the run passes so moved, `self.learn(self.memory.sample())` of a `sample` that returns
  `(states.to(self.device), ...)`), and the
  model, a plain name (not an attribute: `self.encoder` moves with the module that owns
  it; but a layer taken from a plain list, `for layer in self.layers`, does not, when
  every use of the list in the file is a loop that only calls its items, its own
  assignment or `len`; nor does the attribute of a plain class without bases, a trainer's
  `self.model = Net()` called as `self.model(x)` in another of its methods, when only the
  methods of that class name the attribute in the file, each calling it, calling one of
  its harmless methods, `self.model.train()`, `self.model.parameters()`, or a method of
  the module class of the run that every binding of the attribute constructs (or copies
  from an attribute so bound: `self.fixed = copy.deepcopy(self.encoder)`, a copy where
  the module is), one that
  reads its `self` only as `self.<x>` and moves nothing but tensors a factory of torch makes
  right there (`self.critic.Q1(s, a)`; `self.vae.decode(s)` whose `z = torch.randn(n,
  d).to(self.device)` moves a new tensor, none of the module's weights), copying
  it (`copy.deepcopy(self.model)`: a new object, the original left where it is), or
  binding it, and no file of the run that imports the file names such an attribute at all; also
  `self.model = model` of its `__init__`, a parameter that `__init__` reads nowhere else
  but in harmless methods, when every construction of the class in the run hands it a
  model so left on the CPU, with known weights, that the constructing scope reads nowhere
  else but in harmless methods: `Trainer(model, loader, gpu_id)` after `model =
  torch.nn.Linear(20, 1)`, or `Trainer(Net(), ...)`; also a submodule reached through a
  model of a plain name, `model.decoder(z)`, which lives where its owner does, when the
  owner is moved by no function, given to no call that may keep it, and every
  `model.decoder` of the file is called or given a harmless method), called
  or given the input through a method of its class that runs the module on it (as the
  fourth form's `model.decode(z)`, or `layer.train(h)` whose method calls
  `self.forward(x)`), is on
  the CPU: built here, with weights (a `torch.nn` layer with parameters, a
  torchvision model, a module class of the run that holds parameters or buffers or derives from
  such a `torch.nn` layer, or that keeps a module its construction is given with weights,
  `self.encoder = encoder` of `Seq2Seq(Encoder(...), decoder)` or of `Seq2Seq(enc, dec)`
  after `enc = Encoder(...)`, or a container, `nn.Sequential`, `nn.ModuleList` or
  `nn.ModuleDict`, not built only of modules known to be without them: a module class of
  the run, in any file, whose methods register no parameter or buffer and store no
  submodule that may hold one, a `torch.nn` layer without parameters), never moved --
  neither here nor by a function of the file it was given to (`setup(model)` that calls
  `model.cuda()` counts as a move; so does one through the methods that return the module
  itself, `model.bfloat16().cuda()`, and, for a model called by a plain name, a move of its
  parts by the calling function, stored into an attribute or item reached from it,
  `model.decoder.embed = model.decoder.embed.to(dev)` or `layers[0] = layers[0].to(dev)` of
  `layers = model.decoder.layers`, as a layer-by-layer calibration does: `.cuda()`, or
  `.to(d)` of a device `d` the function also moves another tensor to or gives as
  `device=`; not a cast, `.to(torch.float16)`) -- and never handed to anything but such functions,
  builtins, a function of the run whose summary keeps it in place (`validate(loader,
  model)` that only calls it and `model.eval()`) and a function of torch or NumPy that
  keeps its arguments (not to a wrapper or a class, `nn.DataParallel(model).cuda()` or
  `Trainer(model)`, that may move it with itself; `model = nn.DataParallel(model)`, or
  `DistributedDataParallel`, bound back to the model's own name is no handing on: neither
  wrapper moves its module, the wrapper is where its module is, and its moves are the
  name's; for a model a function reads from the
  scope around it, a global or a name of an enclosing function, not there either: a
  script's `trainer = Trainer(config, model)`, then `model.generate(x)` in its callback;
  nor, for a model a call passes to a function or as the receiver of a method, by the
  caller); or a parameter every call of the run
  passes so (`train(model, ...)` with `model = Net()` in `main`; `summary(model, size)`
  called as `summary(Net(), ...)` from another file); or a global bound once in each arm
  of a module-level `if T:` (`model = Big().to(device)` / `model = Small()`) and called,
  as the join of those two values, in the arm of an `if T:` of a function whose model is
  the one left on the CPU (the same text up to a leading `not`; `T` reading only
  module-level names bound once and rebound by no function, and attributes of them the
  file never assigns).

* (from the device-flow analysis) a call of a function or method of the file (`net.train(x)`,
  `evaluate(model, x)`, `self.fit(x)` when no subclass in the file overrides `fit`) is
  given, as a positional argument, an item of a loader's batch never moved while another
  item of the same batch is, or a tensor made on the CPU (as the third and fourth forms
  say), and the callee hands that argument unchanged -- through its own calls of the
  file's functions and methods, on a loop's first round -- to the input of a module with
  weights that is on a device the code chose, in the caller's terms: `net.train(x_pos)` ->
  `layer.train(h)` for `layer` in a list of layers moved in `Net.__init__` ->
  `self.forward(x)` (a module's `forward` called by name runs the module; so does a call of a
  parameter of the callee's where the caller gives it a module: `attack(net, x)` of `def
  attack(model_fn, x)` that runs `model_fn(x)`, also for a function defined at module level
  in another file of the run, `from attacks import attack`; and for a method of a plain
  class of another file run on an instance the caller built, `algo.update(x)` of `from algo
  import Algo` whose `update` runs `self.encoder(src)`, a module the class placed on the
  CPU or the device itself, `self.encoder = Enc().to(device)` in `__init__`; and for a method
  other than `forward` of a module class of another file run on a module the caller built,
  `self.decoder.step(tgt, h)` of `from networks import Dec` whose `step` runs
  `self.emb(idx)`: its body decides, never its name); reported at the
  outermost call, or at the module's call when the function that makes it moves another
  of the module's inputs to the device there (`extra = extra.to(self.device)` before
  `self.model(fp, extra)`, or `self.model(fp, mask=mask.cuda())`): that function puts the
  module's inputs on the device itself, and the input it hands on unmoved lacks its move
  there.  The module may be a network that a plain class of the file (an agent, not a
  module) builds on the CPU in its `__init__` and the code moves from outside the class, by
  a statement of a function's own body (`agent.q.to(device)`, `agent.q = agent.q.to(device)`;
  not under a branch or a loop), run by a method of the class on the instance
  (`agent.act(x)` whose `act` runs `self.q(state)`, itself or through calls of `self`'s
  methods), in the scope of the move while the name holds the same instance, or in a
  function every call of which in the file hands it that instance by a plain name
  (`train(args, env, agent)`; three calls up; not a function other files import, nor a
  method).  Such a finding is reported at the call that hands the CPU tensor on
  (`agent.act(torch.from_numpy(s))`), not at `self.q(state)` where the two meet: the
  tensor is made there and the device is known there, while the class keeps no device of
  its own and another instance of it, never moved, is rightly given CPU tensors through
  the same method.  Not where the function that runs the module moves it, by every move
  it has, to the device of the tensor it then runs it on, a parameter it never rebinds
  and the call's one argument (`resampler = resampler.to(audio.device)`, then
  `return resampler(audio)`): the module is wherever the caller's tensor is.

No form reports a model on the device called on a CPU input that the model's `forward`
moves itself: every class the model may be is a module class of the run whose `forward`
moves the parameter that input is bound to (`x = x.to(self.device)`, `x.cuda()`; not a
move to the CPU) before handing it to any layer with weights (`net(torch.tensor(obs))`,
`self.q_network.forward(state)` of `def forward(self, x): x = x.to(self.device) / 255.0`).
Nor one that every class the model may be, each a module class of the run, reads only as a
number or a shape in its `forward`: a slice bound, `int(t)`, `range(t)`, `t.size(0)`, a
formatted value, a comparison that meets no other tensor
(`self.pos(torch.tensor(0), torch.tensor(n))` of a `forward(self, start, end)` that asserts
`end <= self.n_ctx` and returns `self.weight[start:end]`: a tensor of any device gives its
number there); one it hands to a layer or a helper, indexes a tensor with, or meets a
weight with in an operator still counts.

The fourth form checks a module's inputs after the first too, when the first is not at
fault: every tensor argument of a `torch.nn` layer with weights, and the items of a tuple
among them (the hidden state of a recurrent layer, `self.lstm(x, (h0, c0))` with `h0 =
torch.zeros(...)` made in `forward`), and, for a module every make of which is a module
class of the run, the arguments its `forward` hands to its weights in every such class (as
`weighed_params` answers: `gcn(feats, adj)` whose `adj` meets the layers' weights in
`torch.spmm`, the item `inputs[1]` of `model(*inputs)`; not the `lengths` it gives
`pack_padded_sequence` or only converts, which may rightly stay on the CPU).  A submodule of
`self` (`self.lstm`) is on the device where the run moves an instance of the class
(`model = Rnn().to(device)`, see `instance_on_device`), in the class's methods other than
its construction.  A factory without `device=` whose tensor meets the module so is
reported by FRY010 too, at the factory (with its fix): each finding's evidence names the
other's line.

A metric of torchmetrics whose state is made of tensors (`JaccardIndex`,
`ConfusionMatrix`, `Accuracy`, `Precision`, `Recall`, `F1Score`, `FBetaScore`,
`Specificity`, `StatScores`, `HammingDistance`, each also as its `Binary`, `Multiclass`
and `Multilabel` class, `MeanSquaredError`, `MeanAbsoluteError`), built without `device=`
and without a keyword that makes it keep a list per sample (`multidim_average`), is a module
built on the CPU: its `update` adds to that state, so a call on tensors of the device
fails with "Expected all tensors to be on the same device".  It counts as a model with
weights whatever its name, and any of its positional tensors moved to the device counts as
its input (`jaccard(preds, target)` with only `target` moved): the fourth form reports
`jaccard = JaccardIndex(num_classes=n)` then `jaccard(pred, label)` in a function every call
of the run gives tensors moved to the device (`iou(segmentation, labels)` in the evaluation
loop of another file).

A call that runs the module it is given first on the input it is given second
(`torch.jit.trace(model, example)`, `torch.onnx.export(model, args, f)`,
`writer.add_graph(model, images)`) counts as that module's call on that input in the
third form's loader over a torchvision dataset and in the fourth form.

In the fourth form the input may also come from the run's own containers: what `for x in
obj`, `next(iter(obj))` or `obj[i]` gives by the class's `__iter__` (its `yield`s, or the
items of the container it returns, `return iter(self.items)`; `map(self.prepare, loader)`
gives what the method returns for each item) or `__getitem__`; an item of the batches
of a `DataLoader` over a dataset of the run whose `__getitem__` makes its tensors on the
CPU (`return torch.tensor(self.x[i]), torch.tensor(self.y[i])`), given no `collate_fn` and
no `**` mapping that may hold one (as above), in the scope that builds the loader or in a function every call of the run
hands the loader to, directly or through the callers' own parameters (`for step, (x, y)
in enumerate(loader): model(x)` in `train(loader, model)`); or the values of the mapping
of `model(**inputs)` (also `model(**inputs, labels=y)`): a dict literal, `dict(...)` of
keywords or a comprehension whose every value that may be a tensor was made on the CPU
and never moved (`inputs = {"input_ids": torch.tensor(ids)}`).

In the third and fourth forms, a global model that the calling function finds unmoved is on
the device when a caller of that function moves it in place (`model.to(device)` as a
statement of its body, in no branch or loop) and then calls the function in a later
statement, with no move or assignment of it, and no call of a function of the file that
moves it, in between (`train()` moves the global `model` and then calls `test()`, which
runs `model(images)` on a batch's item).

The findings of the flow forms carry their evidence: the model's move, where the
input comes from (the batch, or where it was made), the other item's move and the call
where they meet (for the last form, the call that hands the input on and the module's call
it reaches).

A whole batch of a loader (`for batch in loader`, `batch = next(iter(loader))`) whose
`.to(device)` (or `.cuda()`) is a statement may be an object that moves its fields in place
(a `BatchEncoding`, a collate function's batch class): it and its items are of unknown place
afterwards, never reported as left on the CPU (`batch.to(device)` then `model(batch.audio)`);
an item's discarded move (`x.to(device)` for `for x, y in loader`) still leaves it there
when the loader is torch's `DataLoader`, built in the file without a `collate_fn` (its
items are tensors); from another loader (a parameter, a loader given a `collate_fn`) the
item may be an object whose `.to()` works in place (a DGL graph before DGL 0.5, a PyG
`Data`): of unknown place, not reported (FRY002 reports the lost copy where it holds the
item to be a tensor).

A cast to a legacy tensor type is a move: `x.type(torch.cuda.FloatTensor)` (or the string
`"torch.cuda.FloatTensor"`) puts `x` on the accelerator, `x.type(torch.FloatTensor)` on the
CPU, and `x.type(T)` with `T` bound to one or the other by a branch (`T =
torch.cuda.FloatTensor if use_gpu else torch.FloatTensor`) where each path's type says, as
a device chosen by the same branch does. Named outright (`torch.FloatTensor`, not a
dtype), the type also says what the result is: a tensor made there whatever `x` was
(`torch.unsqueeze(dataset.test_data, dim=1).type(torch.FloatTensor)` of a dataset's
attribute of unknown kind is a tensor made on the CPU). A module's `.type(T)` casts its
parameters and buffers in place (`Module.type` applies `t.type(T)` to each): a CUDA tensor
type moves it to the accelerator, a CPU tensor type to the CPU, a dtype leaves it where it
is, and any other `T` (a parameter `dtype` the caller sets to `torch.cuda.FloatTensor`,
whatever its name) leaves its place unknown, so the model is not taken as built on the CPU.

Also flags a call of a function or method of the file that hands the output of a model (one
with weights, on a device the code chose, as above) to one parameter and a tensor surely on
the CPU to another -- made there and never moved (`torch.zeros(n, dtype=torch.long)`, not
a 0-dimensional `torch.tensor(0.5)`, which mixes with a tensor of any device), or an item
of a loader's batch none of whose items that loop moves, when another call of the file
gives the same parameter an item of a batch moved to the device (the training loop moves
its labels for `calculat_acc(outputs, labels)`, the test loop does not) -- where the
callee makes the two meet in an operation that wants one device (an operator, a function
of torch, a tensor method that spells an operator, a loss of `torch.nn`: `(outputs.argmax(1)
== labels).sum()`, `torch.equal(i, j)` over `zip(target, output)`), directly or through its
own calls of functions of the file, three deep
(:mod:`torchferry.check.flow.meetings`).  Reported at the call; the evidence names the
meeting inside the callee.

Also flagged, whatever the inputs: a call of a layer with weights that a module's
`__init__` keeps in a plain list, tuple or dict attribute (`self.convs = [nn.Conv2d(1, 8,
(k, d)) for k in sizes]`, `self.heads = {"a": nn.Linear(d, 2)}`, or `self.blocks = []`
grown with `self.blocks.append(nn.Linear(d, d))`), called in a method of the class
(`for conv in self.convs: conv(x)`, `self.heads["a"](x)`, also through a slice of the
list, `for enc in self.encs[1:]`, which holds the same layers).  A plain container registers
nothing: `.to(device)` of the module leaves those weights on the CPU, where they meet
what the module computes on the device, and `parameters()` does not list them (never
trained, never saved), on every machine.  Only where the code establishes it: every item
is a construction of a `torch.nn` layer that owns parameters or of a module class of the
file that makes some (not a module handed in, `self.teacher = [teacher]`, a way to hide it
from the state dict), and the class names the attribute only to call its items, take its
`len` or grow it -- no `nn.ModuleList(...)`/`nn.Sequential(*...)` of it, no `add_module`,
`register_module` or `setattr` in the class, no item moved or handed on, and no other code
of the file naming the attribute (`model.blocks`) (:mod:`torchferry.check.flow.unregistered`).

## Why is this bad
This is the most common device error on the forums: "Input type (torch.FloatTensor) and
weight type (torch.cuda.FloatTensor) should be the same" (the model moved, the input not)
or "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the
same" (the other way round). It only fails on a machine with an accelerator: on a CPU-only
machine both stay on the CPU and the mistake hides until the code reaches a GPU.

## Example
```python
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Encoder().to(device)
x = torch.from_numpy(features).float()
out = model(x)
```

## Use instead
```python
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Encoder().to(device)
x = torch.from_numpy(features).float().to(device)
out = model(x)
```

## Fix safety
No fix: which side should move (the input to the model, or the model to the input) is the
author's choice.

A device parameter that every call of the run points at the CPU (`device =
torch.device("cpu")` in a notebook cell, then `train(model, device, loader)`; `"cpu"`, a
module-level constant bound only to it; calls through a `@torch.no_grad()` decorator too)
is the CPU in the function, and so is one of a test that pytest runs with its default
`device="cpu"` (a `test*` function of a `test_*.py` file that no code of the run calls and
no decorator parametrizes on it): `X.to(device)` there keeps `X` where the unmoved model
is, and nothing is reported.  A device chosen by
`torch.cuda.is_available()`, read from an argument, the environment or a configuration,
or rebound to another device before a later call, may be an accelerator.

## Known limits
A model a plain class keeps and a method of that class returns (`def get_network(self):
return self.actor`) counts as left where it is only where no file of the run names that
method (by its name, whatever class it is called on); one called anywhere counts as handed
out.
A loop that moves modules in place is followed only over a list or tuple written in the
loop (`for net in [self.actor, self.critic]:`) and only when the move is a statement of
the body itself: a list bound to a name first (`nets = [...]; for n in nets:`), or a move
under a test in the body, leaves the modules where they were.
A `**` mapping given to a loader is read only where the file builds it with literal keys
and never uses its name but to bind it or spread it: `kwargs.update(cuda_kwargs)` (the
mapping of pytorch/examples' MNIST) leaves the loader's batches unknown.  A loader over a
`TensorDataset` handed to a function as a parameter (`validate(model, valid_loader)`)
yields there what an unknown loader yields.
A device parameter is the CPU only where every call of the function's name in its file
is a call of it (`obj.train()` of another object does not count) and passes the device
itself; a call that leaves it to a `device="cpu"` default or spreads `*args`, a function
passed around as a value, one with another decorator, and a test method of a class leave
it a device the code chose. The
calls of the run are all the calls there are: a library function that its own example
calls with `"cpu"` is read as on the CPU, whatever device its users pass.
A module never moved, wrapped with several GPUs only (`model_wrapper = model; if
torch.cuda.device_count() > 1: model_wrapper = nn.DataParallel(model).cuda()`), is not
reported when called on a moved input, though with one GPU it stays on the CPU: the
module handed to the wrapper counts as handed on, and the name joined with the moved
wrapper as moved; only a module on the device used so is judged per machine.
What a function of the run returns is where every argument it computes with is: an
attack that clips its result with numbers the caller gives (`torch.clamp(eta, -eps, eps)`
of `attack(net, x, FLAGS.eps)`, a command-line flag of unknown kind) returns a value of
unknown place, so an input rebound to it in an optional arm (`if adv: x = attack(net, x,
FLAGS.eps)`) is no longer known to be moved, and a model left on the CPU is not reported
at its later call.
A `forward` that moves its input inside a loop over blocks (`for b in self.blocks: x =
b(x.to(self.device))`) and then hands the result to a layer of its own (`return
self.fc(x)`) is not known to move its input: the analysis does not know the loop runs,
and on the path where it does not the input reaches `self.fc` unmoved; with blocks kept in
a plain list whose parameters a `ParameterList` of the moved parent holds, the blocks are
also taken to stay on the CPU.  Such a model given a CPU tensor is reported though it
moves it (FRY010 likewise).
A value moved to the device whose kind the analysis does not know, handed to a helper of
the run, counts as the helper's model input only where a layer of `torch.nn` with weights
takes it, or the helper uses its parameter as a tensor (a tensor method, a torch function):
handed on to a model of the run, a container or a recurrent layer (which may take other
objects) it is not followed.

A parameter is taken for a module (`generator(z)` a module call), for an instance of a
plain class of the run (`buffer.sample(n)` then gives what that class's `sample` returns)
or for a generator object of the run (`next(it)` then gives what its function yields)
only when every call of the run hands it one: the calls of its file and of the files that
import it, where at most four files do; a function called from nowhere, handed on as a value,
decorated, a dunder or `forward`, or a call of its name the analysis does not resolve to it,
or one call handing anything else, leaves the parameter unknown.  A loader that a function of
another file returns is read there only where that function returns the one loader it
builds (not one of several, by arm) and that file's dataset is built in that file (not
by yet another file's function).  A model that a function of another file returns is
taken to be on the CPU only where that function builds it and returns it on every path
unmoved; one moved on some arms (`if name == "cgan": d = D()` beside `d = D().to(device)`)
is a join of both places and stays quiet, even where the caller's constant argument
(`build(device, "cgan")`) chooses the unmoved arm: the analysis does not bind constant
arguments into calls.  A method called on an
object that one of several classes of the run may have built (`policy = TD3(...)` on one arm,
`DDPG(...)` on the other) counts as called by each class's method of that name; the last
form follows such a call only for an argument that each class's method hands to a module
(a class whose method Python would refuse the call as written, by its number of
arguments or a keyword, is left out: the program reaches the call only with an instance
that takes it, `if isinstance(self.decoder, Att): self.decoder.step(i, h, enc)`).  An
`isinstance` test itself narrows nothing, but for `isinstance(batch, list)` (or `tuple`)
of a batch that torch's default collate makes a list of (above).

An item of a batch given to a model of no class the analysis can see (`self.model` built
by a factory of another package) is not flagged when the function tests the kind of an item
of the same batch (`isinstance(input_nodes, dict)`: the batch holds more than tensors) and
never uses this one as only a tensor is used (a method no container has, an operator, a
torch function's argument): a graph library's blocks or file names may be anything.
A meeting inside a called function is followed only for functions and methods of the same
file, the call's arguments bound by position or keyword (not a spread `*args` or `**kw`,
nor a call Python would refuse), for parameters bound one by one (the
items of the callee's own `*args`, `args[1]`, are not), and not in a callee that tests a
tensor's device anywhere (`if x.device != y.device:`): it may set the places right on a
path the analysis does not weigh.  An item of a batch that the same loop also moves
another item of is FRY013's.
A module whose every move the code runs only after the call (`out = self.forward(x)` then
`self.to(device)` in a `test` method, or in a helper the method calls afterwards; a method
that the program calls before it moves the instance, `net.probe()` then `net.cuda()`) is
where it was built when the call runs: not reported.  Around a loop that holds the call and
the move (the second turn runs the moved module), or with a second call after the move, the
move counts.  The
order is read only within one file whose scopes reach each other by calls the analysis
resolves: where another file imports the module's file, where a method is run other than by
a call of its name (`forward`, a callback), or the two lie in scopes no chain of calls
joins, any move counts.  A method that moves its module after the call and is itself called
again on the same instance (from outside the file) is not reported.
A constructor that moves the module only on some constructions (`if move: self =
self.to(device)`, `if use_cuda: self.cuda()`), or builds a layer after its whole-module
move, leaves the instance's place unknown (the device or the CPU, a join of both): the
instance is not taken to be on the device, nor on the CPU.
A module class whose base class of the run has its own `__init__` is placed by its
constructor only through a whole-module move (`self.to(device)`, `self = self.cuda()`) after the
base's `__init__` (`super().__init__(...)` as a statement of the body): one that moves only
its own layers, or a base whose own `__init__` moves its layers, counts as built on the CPU
(the base's `__init__` is not followed).

A module-level name that a function of the file rebinds (`global device` in `main`, then
`device = torch.device("cuda")`) is of unknown value wherever a function reads it (the
module's own `device = None` is one of the values it may hold): an input moved to it
(`x.to(device)`) is not taken to stay on the CPU, and a model moved to it counts as moved
to a device the code chose.
A model a plain class keeps from its constructor is placed only when every construction of
the class in the run is known: none where no file of the run builds it; none when a file names
the class other than in a construction (a subclass, an annotation, the class handed to a
factory), builds it with `*args`/`**kw`, builds it in a function whose text neither makes nor
moves a tensor (such a function is not interpreted), or when another method of the class
assigns the attribute; constructions that disagree (one moves the model, one does not) make it
"may be on the device". Only `self.model(x)` in a method of the class itself is read so, not
`self.model` bound to another name first.  Such a kept model counts as left on the CPU only
when the constructing scope reads the name it passes nowhere but in the construction, in
harmless methods (`model.parameters()`) and in calls that keep it in place (a function of the
run whose summary only reads it, `describe(model)`): a model also given to anything else, or
moved in place after the construction (`model.cuda()`), keeps the class quiet.
A plain class's model attribute counts as left on the CPU (the last form) only for a class
without bases, of the file that builds the model, when the run's importing files are all
known (at most 8) and the model's weights are (a `torch.nn` layer with parameters, a class
of the run that holds them, a container built right there holding one: not
`nn.Sequential(*augments)` of a list built elsewhere); a model handed anywhere
(`wrap(self.model)`, `nn.DataParallel(self.model)`, `copy.deepcopy(self.model, memo)`) but
to a function of the run whose summary keeps it in place (one that only copies state between
modules: `target.load_state_dict(main.state_dict())`, or a `for` over `zip(main.parameters(),
target.parameters())` writing `t.data.copy_(...)`), or named through anything but `self`
(`trainer.model.cuda()`, in the file or an importing one) but where an importing file only
reads or writes its state (`agent.policy.load_state_dict(sd)`,
`torch.save(agent.policy.state_dict(), f)`), keeps the class quiet; so does a method of the model that names its own `self` whole
(`self.to(x.device)`, `helper(self)`) or any mover, or a method of a class that the
bindings do not all construct (or copy, `copy.deepcopy(self.<attr>)`, from an attribute
whose bindings do).
The first two forms check only calls of a plain name (`model(x)`, not `self.model(x)`), with
the model and the CPU input bound in the calling scope (for the second form, the model may be
a global); the third and fourth need a move of the model the analysis sees in the file (or, for the
fourth, a `torch.load` given a device as `map_location`) or,
for a parameter of a module-level function, in every call of the run (the calls from other
files count only when at most 8 files import the function's file, each within the analysis's
budget, and none names the function other than in a call; a method of a plain class counts
the calls of those files on an instance they build, `agent.act(env.reset())`, where none names
an attribute of the method's name other than in such a call or a call of it on a module or a
tensor the analysis builds or infers (`net_glob.train()` beside `local.train(net=net_glob.to(
device))`), or on an instance of another plain class of the run that the analysis resolves
to that class's own method of the name (`ddpg.train(buffer)` beside `bcq.train(buffer)`); a
receiver of unknown kind, or known by its name only, may be another instance of the class),
but not the calls of a file that
does not import the class's file, handed the instance as a parameter, nor those of a module's
method), the third another item of the batch moved or a loader of the file over a
torchvision dataset (a `**kwargs` of the loader counts only when every binding of it in
the file is a dict literal without `collate_fn`). No form reports a call of a data-parallel
wrapper (`nn.DataParallel(net)`, `DistributedDataParallel`, `FullyShardedDataParallel`),
also one a function is given as its model, on an input made on the CPU: its forward
scatters (or moves) its inputs to the devices of its replicas itself. The module such a
wrapper holds, `model.module` (also read into a name first), is no wrapper: it is the
module the wrapper was given, where the wrapper is (the wrapper's `.to()` moves it along),
so `model.module(x)` of `model = nn.DataParallel(net).to(device)` on a CPU `x` is
reported; not through a parameter that the callers give a wrapper, nor of a wrapper of a
wrapper. Except where the
wrapper is made only in the body of `if torch.cuda.device_count() > 1:` (bound back to the
module's name, no `else` binding it), and the call comes after that `if`: on a machine with
one GPU the model there is the plain module, which a CPU input fails.  So too for a wrapper
moved there (`model = nn.DataParallel(model).cuda()`), or bound to a name that the statement
just before the `if` binds to the module (`model_wrapper = model`; the test may also be an
`and` with `torch.cuda.device_count() > 1`, false with one GPU): the name, used after the
`if` (or handed from there to a function of the run that uses it), is the module wherever
it is, where nothing after the `if` rebinds it or the module, moves them in place, or hands
them to a call the analysis does not know to keep them in place; such a finding says that
it fails on a machine with one GPU. The fifth form
judges a `DataParallel` or `DistributedDataParallel` wrapper that the analysis holds on
the CPU (its module never moved) by its module: given a moved input, it fails as the module
does. The
fourth form does not report a module without weights (a loss, an activation, a container
of such modules only, a module class of the run without weights as above, or anything
named as a loss, criterion or metric that is not one of torchmetrics' metrics above), a
metric of torchmetrics that keeps lists of what it is given (`AUROC` without thresholds)
or moves it (`MeanMetric`), a data-parallel wrapper (it scatters its inputs
itself), an input computed by a call the analysis cannot see into (a transform, a
tokenizer not given `return_tensors="pt"`, a `Compose` with a `Lambda` or a transform not
of torchvision or albumentations) or a
module's output, nor a file with a `with torch.device(...)` block, nor a call on a
tensor made on the CPU in the arm of a test fixed for the run (`torch.cuda.is_available()`)
under whose value nothing of the file is put on an accelerator (every move of the file is
in the other arm of the same test), nor a call in the arm
of a test that left the model on the CPU: a class whose `__init__` moves it in one arm of
`if T:` and not in the other (`if self.training: self.net = Net().cuda()` / `else: self.net
= Net()`), called in the other arm of the same test in a method (the same text, up to a
leading `not`; `T` reading only constants, attributes of `self` that no other method
assigns, not `training` of an `nn.Module`, and module-level names no function rebinds); a
test another method may change, or a call after an early `return` rather than under an
`else`, is still reported. The fifth form does
not report a global model that a function of the file moves in place (it may run before
the call), and a function called from outside the checked files may be given a moved model
there.
The last form follows functions and methods of the same file, functions defined at
module level in another file of the run for a module the call hands them
(`robust_loss(model=model, x=data)` of `from losses import robust_loss`), and methods of a
plain class of another file called on an instance the calling file built, for a module the
call hands them or one the class keeps whose place is the CPU or the device (not one
placed where a parameter or an attribute of that file is), and methods of a module class
of another file called on a module the calling file built (not one a parameter of the
caller's holds, nor one another file built), six calls deep,
an argument passed by position or keyword as Python binds it (not a call that spreads
`*args` or `**kw`, nor one Python would refuse: a keyword no parameter has, a parameter
bound twice), and a value handed on
as it came in (moved, joined with another value on some path, or changed in a loop before
the module's call on a round that may not be the first, it is not followed); the model of
a method's own `self(...)` and a model moved by a library object (`Trainer`, an
`Accelerator`) are not seen on the device by it (transformers' `Trainer` moves its model
to `args.device` when built, but not a model-parallel or quantized one, nor under
DeepSpeed, FSDP or a half-precision evaluation without training, which its arguments and
the model decide: not used).  The whole batch object whose class the file defines (`def to(self,
device): self.x = self.x.to(device)`) is not placed on the device after its in-place move,
only left unknown.  A global model moved in place by a
caller counts only for the function that caller calls directly after the move, not for
the functions that function calls in turn. A script's global moved in place by a statement
of its `if __name__ == "__main__":` arm (or of a module-level `if
torch.cuda.is_available():`) counts for a function that reads it when no code of the file
runs that function before the move (every call of it, three calls deep, follows the move in
the arm, or there is none: a route that the arm's `app.run()` serves), and only with an
input made on the CPU on every path (a tokenizer's `return_tensors="pt"` tensors, joined
with tensors the run made there: `torch.cat([prefix, ids])`); a move nested in a branch or
loop of the arm, or a function another file runs after moving the model itself, is not
followed.
The run's containers are followed only for a class that is not an `nn.Module`; an
`__iter__` that returns `self` gives what the class's `__next__` returns (nothing known
without one), one that uses `yield from` gives nothing known, and a dataset whose `__getitem__` reads tensors its `__init__` was given (`self.x[i]` of a
tensor argument) yields batches of unknown make.  A loop over a loader parameter is
followed only when it iterates the parameter itself (`loader`, `enumerate(loader)`,
`tqdm(loader)`) and the item reaches the model unchanged; a mapping of unknown values (a
tokenizer's output handed on through parameters or lists of requests, a library's
`BatchEncoding({...})`) is not checked.
An item of a loader given a `collate_fn` that is not in the run may be no tensor at all (a
numpy array of times, a list): the third form still reports it when another item of the
batch is moved.  A `forward` that moves its input on some path only (`if self.use_cuda:
x = x.cuda()`) counts as moving it (the same test may have placed the weights), and so does
one that hands its input, as it came in, to a submodule of a class of the run whose own
`forward` moves it (`self.encoder(batch)` of an encoder that runs `a, b = batch` then
`a.cuda()`; through submodules in turn, six methods in all) when nothing else of the input
meets its weights unmoved (a later argument of a submodule counts only where that
submodule's `forward` hands it to weights); a model that is a parameter is asked of the
models every call of the run passes (three calls deep).  A submodule the module's
`__init__` is given (`self.encoder = encoder`) is not followed (still reported); a model
that may also be of a class outside the run is not known to move it (still reported); a method
other than `forward` called on the module (`model.decode(z)`) is asked whether it moves
its parameter through what the method hands to its weights.
The inputs after the first are checked only for a `torch.nn` layer with weights or a module
whose every class is of the run (a library's model, or one built by a function, may keep
an input on the CPU on purpose), and given by position or keyword (a `*args` of other
items than `model(*inputs)`'s stops them), each only as a tensor the run made on the CPU
(not an item of a batch moved in part), and for a module of the run only where its `forward`
hands the input to its weights or brings it together with another input: a time grid it
only passes on to a solver of another file (`model(x, t_span)`, the solver may move it to
`x`'s device) is not reported, even where that solver would fail.
An input moved on some path only (the analysis joins it over the arms of a test) counts as
moved, for a model the code never moves, where every move of it is in this file in the
true arm of one device flag fixed for the run (`if args.cuda: x = x.cuda()`: `args.cuda` an
attribute the file never assigns, or assigns once in a module-level statement from a test of
`torch.cuda.is_available()`, `args.cuda = not args.no_cuda and torch.cuda.is_available()`;
a module-level name bound once from such a test, `use_cuda = torch.cuda.is_available()`),
and the call is in no arm where the flag is false: where the flag is true every such move
has run.  So, on the other side, a model a function moves as its own parameter in the true
arm of such a flag (`def train(model): if torch.cuda.is_available(): model = model.cuda()`;
the parameter joined with nothing but its moves under that one flag) is on the device
where it is used, in that function or in the one it hands the model to
(`train_epoch(model=model)`, a call in no arm where the flag is false), whatever its
caller gave: an input that no path moves fails there.  It counts too, for a model of a plain name that no path moves (built on the CPU
here or by every caller, not handed to anything that may move it, nor bound to another
name or put in a container, `net = model`, in the scope that builds it or in a caller that
hands it on), where every move of it goes to a device that may be an accelerator and
lies in arms of tests of a setting (a name or an attribute of one: `if cuda:` of a
parameter `cuda`, `if self.use_gpu:`), or in the arm where `torch.cuda.is_available()`
holds, which every machine with a GPU takes (`if torch.cuda.is_available(): images =
images.cuda()` in `train(loader, model)`, every call of which passes a model built with
weights and never moved), in this file or in the generator function of another file of the
run whose items the input is (`if params.cuda: batch = batch.cuda()` before `yield batch`
in a method of a class of `data_loader.py`), that the file does not fix against the arm (every
binding of the name a constant that makes the arm not taken, `USE_CUDA = False`, or `if
False:`) and that read nothing named as the model is (`if next(model.parameters()).is_cuda:`),
nor the calling file either, and the call is in no other arm of those tests (`if not cuda: out = model(data)`): where
the move runs, the input is on the device and the model is not.  A move under a test of
the data (`if x.sum() > 0:`), or an input made through a call the analysis cannot see into
keep the call quiet.  A model built by one class of a table of classes of the run
(`models[args.dataset][args.model](hidden)`, a dict of classes, or `A if big else B`)
counts as built on the CPU where no class's `__init__` places its layers, and with weights
where each class is known to hold weights or not and one does (each entry is a model the
code offers); more than seven classes, or an entry that is anything else, leave it unknown.
A model bound to one class or another in the arms of a test, moved in one arm and not in
the other (`if self.D2RL: self.actor = DeepActor(...).to(device)` / `else: self.actor =
Actor(...)`), is not reported: the test may decide the device too.
A module class of the run built around a module that may be off the CPU, one its
`__init__` keeps on `self` as it is given (`self.base = base`) and the construction hands a
module that was moved, whose place is not known, or that is itself so built (`net =
Net().to(dev)`, then `bayes = Bayes(args, net)`, `swag = Swag(args, bayes)`), is not built
on the CPU: it holds that module's weights where they are.  Where it also builds weighted
layers of its own, never moved, the places are mixed and the call is not reported either.
Nor is a call reported in the false arm of a flag (`if args.gpu: out = model(x.cuda())` /
`else: out = model(x)`) when all that may put the model on an accelerator is a move in this
file in the true arm of the same flag: in the same function, or, for a model handed in as a
parameter, in every caller of this file (three calls deep), where the flag reads what that
caller hands for the parameter (`if args.gpu: model = model.cuda()`, then `train(model,
args)`; `args` a parameter or a name bound once there, `gpu` an attribute nothing in the file
assigns; a module-level name bound once, `USE_GPU`, reads the same everywhere).  A model
moved whatever the flag (in one caller enough), under another flag, a flag attribute the
file assigns, a name rebound before the call, another object handed for `args`, or a caller
outside the file keep it reported.  A plain tensor attribute moved under the flag in
`__init__` (`if args.gpu: self.mask = self.mask.cuda()`) of a module the caller moves only
under the same flag is still reported by FRY011, which does not relate the two tests.
A model built by a function (`build_model(cfg)`, `from_pretrained(...)` of a class that is
no Hugging Face model class, anything given a `device`/`device_map`; not a module class of the run whose `__init__` keeps the `device` it
is given only as the place of tensors its methods make, `self.device = device` read as
`torch.arange(n).to(self.device)` or `device=self.device` of a `torch` factory outside
`__init__`, or hands it on to classes of the run that do the same: its weights stay on the
CPU, and `Transformer(..., device=device)` never moved, given inputs moved there, is
reported), loaded with `torch.load` (the fourth form excepted, given a
`map_location` that is a device), passed to another call (`DataParallel`,
`accelerator.prepare`, `trainer.fit`), returned or aliased is not checked, nor is any model
in a file that sets a default device (`torch.set_default_device`, `with torch.device(...)`).
A Hugging Face model loaded by `from_pretrained` of its class or of an `AutoModel...`
factory (`GPTNeoForCausalLM.from_pretrained(name)`) with no keyword that may place it
(`device_map`, `device`, a quantisation: `load_in_8bit`, `quantization_config`; nor
`**kwargs`) holds its weights on the CPU, as transformers loads them: called, or its
`generate` called, on an input moved to the device (the prompt `tokenizer(text,
return_tensors="pt").to(device).input_ids`) where the run never moves it, it is reported.
Such a model bound to `None` on another path (`model = None`, then `if name: model =
...from_pretrained(name)`) is not followed. A checkpoint saved already quantised with
bitsandbytes (its config holds a `quantization_config`) is placed on the accelerator by
transformers even without a keyword; the name of the checkpoint does not show it, and such
a model is still taken to be on the CPU.
Where a library places the model, outside the checked files, the rule does not know where
it is: `accelerator.prepare(model)` of accelerate given a keyword (`device_placement=
[...]`), or of an `Accelerator` built given `cpu=`, `device_placement=` or options the code
does not show (`**kwargs`), or one not built in the same file (a model prepared by a plain
`Accelerator()` of the file, `model, opt, loader = accelerator.prepare(model, opt,
loader)` or `accelerator.prepare_model(model)`, is where the accelerator runs, as
accelerate 0.20.3 and 1.2.1 put it, and a loader so prepared yields its batches there), a
Lightning `Trainer` after `fit` (which hands the module back on the CPU), a `LightningModule`
whose `Trainer` the run builds without a device the code shows (a bare `Trainer()`, which
1.x runs on the CPU and 1.9 and 2.x on an accelerator when there is one; `accelerator=
args.accelerator`; `Trainer(**config)`; `Trainer.from_argparse_args(args)`), a method of the
module that its hooks call (only the hooks' own `self` is placed), a batch the code draws
itself from Lightning's trainer or data module (`next(iter(self.trainer.val_dataloaders))`,
`self.trainer.datamodule.train_dataloader()`: Lightning does not move it, only the batches
it hands to the `*_step` hooks, but `trainer.val_dataloaders` is a list of loaders in
pytorch-lightning 1.3.8 and 1.9.5 and the loaders the module returned in 2.4.0, and a data
module's `train_dataloader()` may return a collection of loaders in each), a model a class of
the run is given by code outside the run (`Jsonformer(model, ...)` of a caller's
`model.cuda()`): its CPU inputs are not reported.
A layer of a Hugging Face model placed as a whole (`clip.text_model(**inputs)` of
`CLIPModel.from_pretrained(name).to(device)`; `model.encoder(...)` of an `AutoModel...`) is
a model call on the model's device only for the layers the library's classes build under
known names (`text_model`, `vision_model`, `encoder`, `decoder`, `embeddings`, `lm_head`,
the base model under the architecture's name); a method (`clip.get_text_features(...)`) or
any other attribute is not. A module-level cache that one function fills with the model it
returns (`model_cache[path] = net` then `return net`, the dict bound once to `{}`) keeps
that model's place in what the function returns; a cache filled or rebound anywhere else
(the module's code, another function, `.update()`, `global`, a file of the run that
imports this one and names it) is not followed. A function's return that is a tensor made
on the CPU on one path and `None` on another (`img = None`, then `img = torch.as_tensor(...)`
under a test) is not taken for a CPU tensor, even under `if img is not None:` (the
analysis does not narrow on `is None` tests).

An item of a loader's batch, never moved while another item is, is followed through
arithmetic with tensors the run made on the CPU (`x + torch.randn(x.size())`, in the loop
or in a function of the run that returns such a sum of its parameter): both sides are on
the CPU, so the model's input is; not a sum that also draws on a parameter of the scope, a
module's output or a load.  An attribute of a whole batch (`batch.text`, `batch.label` of a
torchtext iterator) is not an item: `x = batch.text` left on the CPU while `batch.label` is
moved is not reported.  A value of unknown kind moved to the device (`x =
batch.text.to(device)`) counts as a tensor given to a model of the run that is never moved
when every make of the model is a module class of the run whose `forward` hands its first
parameter, in the first statement that names it and under no test, to a layer of
`torch.nn` with weights that takes tensors only and that the class binds once (`x =
self.embed(x)` of `self.embed = nn.Embedding(n, d)`; not a recurrent layer, which takes
packed sequences too), or, after statements that only read its shape (`n = src.size(1)`),
hands it to a module its `__init__` keeps from a parameter (`self.encoder(src)` of
`self.encoder = encoder`) whose argument in that make is a module class of the run whose
`forward` so hands its input to such a layer (`Seq2Seq(Encoder(...))`).  The input of a model that is an attribute of an attribute
(`self.clip_model.text_model(**inputs)`), or the return of a method of the run
(`img = self._get_image()`), is not followed.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace

from torchferry.check.api import Context, Evidence, Finding
from torchferry.check.flow import (
    ACCEL,
    CPU,
    Basis,
    Callee,
    CallEvent,
    ClassInfo,
    FileFlow,
    Kind,
    Op,
    Origin,
    ScopeResult,
    Value,
    Where,
    handoff,
    vocab,
)
from torchferry.check.flow import evidence as ev
from torchferry.check.flow.arms import (
    entry_arm_move,
    flag_arm_move,
    flag_arms_apart,
    global_in_arm,
    move_on_a_path,
    off_device_arm,
    other_arm_of_move,
    param_flag_move,
    plain_on_one_gpu,
)
from torchferry.check.flow.batches import (
    batch_moves,
    joined_item,
    loader_item_made,
    made_item,
    of_unknown_kind,
    unmoved_item,
    whole_batch_of,
)
from torchferry.check.flow.binding import Arg
from torchferry.check.flow.built import weightless_layer
from torchferry.check.flow.converted import bound_arguments, param_names
from torchferry.check.flow.device_param import ignores_for_weights
from torchferry.check.flow.events import Effect
from torchferry.check.flow.feeds import Feed, call_feeds, callee_of
from torchferry.check.flow.first_run import first_run
from torchferry.check.flow.injected import hands_to_a_tensor_layer
from torchferry.check.flow.lattice import param, zero_dim_made
from torchferry.check.flow.libfacts import holds_tensors
from torchferry.check.flow.meetings import ParamMeeting, given_tensors, param_meetings
from torchferry.check.flow.modclass import has_parameters, hf_pretrained_model
from torchferry.check.flow.number_reads import number_read_args
from torchferry.check.flow.one_gpu import one_gpu_value
from torchferry.check.flow.program import (
    builds_weights,
    class_weights,
    holds_a_moved_module,
    holds_parameters,
)
from torchferry.check.flow.queries import is_device, rewrapped, value_of
from torchferry.check.flow.unpacked import passed_tuples, returns_cpu_items, unpacked_item
from torchferry.check.flow.unregistered import (
    Container,
    UnregisteredLayers,
    unregistered_layers,
)
from torchferry.check.flow.vocab import (
    ACCEL_KINDS,
    ACCEL_MOVE_NAMES,
    ACCEL_MOVES,
    DATA_FACTORIES,
    LIKE_FACTORIES,
    MODULE_SELF,
    OUTSIDE_CLASS,
    PARAM_LAYERS,
    SHAPE_FACTORIES,
    keeps_arguments,
)
from torchferry.check.flow.walk import own_nodes
from torchferry.check.flow.weighed import (
    forward_takes_a_tensor,
    keeps_itself,
    moves_own_param,
    unmet_inputs,
    weighed_params,
)
from torchferry.check.names import DEVICE_NAME, kwarg, pos, tail
from torchferry.check.scopes import How, Scope, ScopeKind, Site, Walker

CODE = "FRY014"
NAME = "model-input-mismatch"
FIX = "none"

#: methods that return the module itself (a chain through them keeps "moved")
_SELF = frozenset("eval train float half double bfloat16 requires_grad_ share_memory".split())
#: callees that build a model somewhere else, possibly already on a device
_BUILDER = re.compile(r"(build|create|load|get|make|from_|init|setup|prepare|instantiate|wrap)", re.I)
_LOSSY = re.compile(r"(loss|criterion|metric|accuracy|softmax|relu|sigmoid|tanh|dropout|pool|"
                    r"flatten|identity|upsample)", re.I)
_SAFE_USES = frozenset({"eval", "train", "load_state_dict", "state_dict", "parameters",
                        "named_parameters", "modules", "named_modules", "children",
                        "zero_grad", "requires_grad_", "forward", "float", "half", "double"})


def _device_like(m: Walker, node: ast.AST, ff: FileFlow) -> bool:
    """Is ``node`` (the argument of ``.to(...)``) a device other than the CPU?"""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and \
            node.value.split(":")[0] in ACCEL_KINDS
    if isinstance(node, ast.Attribute):
        return node.attr == "device"
    if isinstance(node, ast.Call):
        if m.qualname(node.func) != "torch.device" or not node.args:
            return False
        first = node.args[0]
        return _device_like(m, first, ff) if isinstance(first, ast.Constant) else True
    if isinstance(node, ast.Name):
        if DEVICE_NAME.match(node.id):
            return True
        return is_device(ff, node)
    return False


def _move(m: Walker, call: ast.AST, ff: FileFlow) -> bool:
    """Is ``call`` a move to an accelerator (``.cuda()``, ``.to(device)``)?"""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return False
    attr = call.func.attr
    if attr in ACCEL_MOVES:
        return not (call.args and isinstance(call.args[0], ast.Constant)
                    and call.args[0].value == "cpu")
    if attr == "to":
        target = call.args[0] if call.args else kwarg(call, "device")
        return target is not None and _device_like(m, target, ff)
    return False


def _moved_chain(m: Walker, node: ast.AST, ff: FileFlow) -> bool:
    """Does an expression end in a move, possibly followed by ``.eval()`` and the like?"""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if _move(m, node, ff):
            return True
        if node.func.attr not in _SELF and node.func.attr not in (
            "unsqueeze", "float", "view", "reshape", "permute", "contiguous", "squeeze",
        ):
            return False
        node = node.func.value
    return False


def _local_binding(m: Walker, name: str, scope: Scope, at: int):
    lst = scope.binds.get(name)
    if not lst:
        return None
    return m.binding(name, scope, at) if any(p <= at for p, _ in lst) else None


def _bare_moves(m: Walker, ff: FileFlow, name: str, scope: Scope, start: int, end: int) -> list[bool]:
    """Moves (True) and ``.cpu()`` calls (False) of ``name`` as statements in a range."""
    out = []
    for site in scope.calls_between(start, end):
        call = site.node
        if not (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
                and call.func.value.id == name):
            continue
        if call.func.attr == "cpu" or (call.func.attr == "to" and call.args and
                                       isinstance(call.args[0], ast.Constant) and
                                       call.args[0].value == "cpu"):
            out.append(False)
        elif _move(m, call, ff):
            out.append(True)
    return out


def _model_moved_here(m: Walker, ff: FileFlow, name: str, site: Site[ast.Call]) -> bool:
    scope, at = site.ctx.scope, site.pos
    b = _local_binding(m, name, scope, at)
    if b is None or b.how is not How.EXPR or b.value is None:
        return False
    moved = _moved_chain(m, b.value, ff)
    for step in _bare_moves(m, ff, name, scope, b.pos + 1, at):
        moved = step
    return moved


def _wrapper_at(ff: FileFlow, call: ast.Call) -> bool:
    """Is the model ``call`` calls a data-parallel wrapper (:func:`_data_parallel`)?"""
    res = ff.scope_of(call)
    c = res.calls.get(id(call)) if res is not None else None
    return c is not None and _data_parallel(c.func)


def _mentions_a_device(node: ast.AST) -> bool:
    """Does an expression pass a device anywhere (``device=``, ``.to(...)``, ``.cuda()``)?"""
    for x in ast.walk(node):
        if isinstance(x, ast.Call):
            if any(k.arg in ("device", "pin_memory") or k.arg is None for k in x.keywords):
                return True
            if isinstance(x.func, ast.Attribute) and x.func.attr in ("to", "cuda", "xpu", "mps",
                                                                     "npu", "type_as", "new_tensor",
                                                                     "new_zeros", "new_ones"):
                return True
    return False


def _cpu_tensor(m: Walker, ff: FileFlow, arg: ast.AST, site: Site[ast.Call]) -> bool:
    """A tensor built in this scope on the CPU (by a factory, ``torch.tensor``,
    ``from_numpy``... with no device anywhere in its making) and not moved since."""
    found = value_of(ff, arg)
    v = found[1] if found is not None else None
    if v is None or not (v.is_(Kind.TENSOR) and v.only(Where.CPU) and v.origins and
                         all(o.op is Op.MADE for o in v.origins)):
        return False
    if _mentions_a_device(arg):
        return False
    if isinstance(arg, ast.Name):
        return _built_by_a_call(m, ff, arg.id, site.ctx.scope, site.pos)
    return True


def _built_by_a_call(m: Walker, ff: FileFlow, name: str, scope: Scope, at: int,
                     depth: int = 0) -> bool:
    """Is ``name``, where ``at`` reads it, bound by a call that mentions no device (or by
    another name so bound, as ``x = img`` or ``input = input``: the same tensor, three
    names deep), with no move of it as a statement between its binding and ``at``?"""
    b = _local_binding(m, name, scope, at)
    if b is None or b.how is not How.EXPR or b.value is None or _mentions_a_device(b.value):
        return False
    if any(_bare_moves(m, ff, name, scope, b.pos + 1, at)):
        return False
    if isinstance(b.value, ast.Name) and depth < 3 and b.pos > 0:
        return _built_by_a_call(m, ff, b.value.id, scope, b.pos - 1, depth + 1)
    return isinstance(b.value, ast.Call)  # (built from other names: not checked here)


def _moved_input(m: Walker, ff: FileFlow, arg: ast.AST, site: Site[ast.Call]) -> bool:
    """Is ``arg`` moved to an accelerator where it is passed, or where the name it is was
    bound in this scope?"""
    scope, at = site.ctx.scope, site.pos
    if _moved_chain(m, arg, ff):
        return True
    if isinstance(arg, ast.Name):
        b = _local_binding(m, arg.id, scope, at)
        if b is not None and b.how is How.EXPR and b.value is not None:
            return _moved_chain(m, b.value, ff)
    return False


def _global_model(m: Walker, ff: FileFlow, name: str, site: Site[ast.Call]):
    """The one binding of a model built in this file, if nothing could move it."""
    s: Scope | None = site.ctx.scope
    while s is not None and name not in s.binds:
        s = s.parent
    if s is None or s.kind is ScopeKind.CLASS or len(s.binds[name]) != 1:
        return None
    b = s.binds[name][0][1]
    if b.how is not How.EXPR or not isinstance(b.value, ast.Call):
        return None
    call = b.value
    if _placed_by_arguments(m, ff, call) or _built_elsewhere(ff, call) or holds_a_moved_module(ff, call):
        return None  # (built around a moved module: not on the CPU alone)
    func = call.func
    q = m.qualname(func) or ""
    callee = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if not callee or _BUILDER.search(callee):
        return None
    if _LOSSY.search(name) or _LOSSY.search(callee):
        return None  # losses and metrics rarely hold parameters
    if q.startswith("torch.nn."):
        known = builds_weights(ff, call) is not False
    elif q.startswith(_TV_TRANSFORMS):
        known = not _weightless_transform(m, call)
    elif isinstance(func, ast.Name) and func.id in m.classes:
        cls = m.classes[func.id]
        known = cls.is_module and has_parameters(m, cls)
    else:
        known = (
            q.startswith("torchvision.models.")
            or callee[:1].isupper()
            or (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id == "models")
        )
    return b if known else None


_TV_TRANSFORMS = "torchvision.transforms."
#: torchvision transforms that hold tensors of their own (``LinearTransformation``'s matrix
#: and mean, checked against the input's device) or run any code (``Lambda``)
_HOLDING_TRANSFORMS = frozenset({"LinearTransformation", "Lambda"})
#: torchvision transforms that apply the transforms they are given
_TRANSFORM_GROUPS = frozenset({"Compose", "RandomApply", "RandomChoice", "RandomOrder"})


def _weightless_transform(m: Walker, call: ast.Call, depth: int = 0) -> bool:
    """Is ``call`` a torchvision transform that computes where its input is
    (``Normalize(mean, std)``, ``Resize(224)``, a ``Compose([...])`` of such transforms)?
    None holds parameters: given a tensor on the device it works there.  A group whose
    steps are not all such calls (a ``Lambda``, a module of the run) is not known."""
    q = m.qualname(call.func) or ""
    last = q.rsplit(".", 1)[-1]
    if not q.startswith(_TV_TRANSFORMS) or last in _HOLDING_TRANSFORMS or depth > 4:
        return False
    if last not in _TRANSFORM_GROUPS:
        return True
    steps = call.args[0] if call.args else next(
        (k.value for k in call.keywords if k.arg == "transforms"), None)
    return isinstance(steps, (ast.List, ast.Tuple)) and all(
        isinstance(st, ast.Call) and _weightless_transform(m, st, depth + 1) for st in steps.elts)


def _placed_by_arguments(m: Walker, ff: FileFlow, call: ast.Call) -> bool:
    """May ``call``'s arguments place what it builds (``device=``, ``device_map=``,
    ``**kwargs``, an argument that is a device)?  Not when ``call`` builds a module class of
    the run whose construction keeps each such argument only as the place of tensors its
    methods make (:func:`ignores_for_weights`)."""
    placing = [k.value for k in call.keywords if k.arg in ("device", "device_map", "map_location") or k.arg is None]
    placing += [a for a in call.args if _device_like(m, a, ff)]
    if not placing:
        return False
    cls = ff.class_called(call)
    init = cls.methods.get("__init__") if cls is not None and cls.is_module else None
    if cls is None or init is None or any(k.arg is None for k in call.keywords):
        return True
    params = param_names(init)
    bound = {id(a): i for i, a in bound_arguments(call, params).items()}
    return any(id(a) not in bound or not ignores_for_weights(ff, cls, params[bound[id(a)]]) for a in placing)


def _built_elsewhere(ff: FileFlow, call: ast.Call) -> bool:
    """Does the analysis place what ``Net(...)`` builds other than on the CPU alone: a
    module of the run whose ``__init__`` moves its layers (``self.lstm = nn.LSTM(..).cuda()``),
    or one it cannot tell?"""
    res = ff.scope_of(call)
    v = res.value(call) if res is not None else None
    return v is not None and v.is_(Kind.MODULE) and v.places != frozenset((CPU,))


#: the nodes no question of :class:`_Uses` is about: the contexts of names and the operators
_INERT = frozenset((ast.Load, ast.Store, ast.Del, *ast.operator.__subclasses__(), *ast.unaryop.__subclasses__(),
                    *ast.cmpop.__subclasses__(), *ast.boolop.__subclasses__()))


class _Uses:
    """Every load of each name in the file with its parent node, the parent of every
    node, and whether a ``with torch.device(...)`` block exists: found in one walk of the
    tree, once per file, when a question first reads them (most files ask none: their
    calls have no input moved to the device)."""

    def __init__(self, m: Walker) -> None:
        self._m = m
        self._found: tuple[dict[str, list[tuple[ast.Name, ast.AST | None]]], dict[int, ast.AST], bool] | None = None

    @property
    def loads(self) -> dict[str, list[tuple[ast.Name, ast.AST | None]]]:
        return self._walked()[0]

    @property
    def parents(self) -> dict[int, ast.AST]:
        return self._walked()[1]

    @property
    def device_block(self) -> bool:
        return self._walked()[2]

    def _walked(self) -> tuple[dict[str, list[tuple[ast.Name, ast.AST | None]]], dict[int, ast.AST], bool]:
        """The three tables, from one walk in :func:`ast.walk`'s order (each node's children
        recorded as it is reached; the contexts and operators, which no question asks
        about, left out)."""
        if self._found is None:
            m = self._m
            loads: dict[str, list[tuple[ast.Name, ast.AST | None]]] = {}
            parents: dict[int, ast.AST] = {}
            device_block = False
            todo: list[ast.AST] = [m.tree]
            for node in todo:
                if type(node) is ast.With and not device_block and any(
                        isinstance(i.context_expr, ast.Call) and m.qualname(i.context_expr.func) == "torch.device"
                        for i in node.items):
                    device_block = True
                for field in node._fields:
                    v = getattr(node, field, None)
                    for child in v if type(v) is list else (v,):
                        if not isinstance(child, ast.AST) or type(child) in _INERT:
                            continue
                        parents[id(child)] = node
                        todo.append(child)
                        if type(child) is ast.Name and isinstance(child.ctx, ast.Load):
                            loads.setdefault(child.id, []).append((child, node))
            self._found = (loads, parents, device_block)
        return self._found


def _never_moved(uses: _Uses, name: str, info: ClassInfo | None = None) -> bool:
    """Every use of ``name`` in the file is a call of it or a harmless method of it; with
    ``info``, the model's module class of the run, also a call of a method of that class
    that leaves the module where it is (:func:`keeps_itself`: ``model.log_probs(x)``)."""
    if uses.device_block:
        return False
    for node, parent in uses.loads.get(name, ()):
        if isinstance(parent, ast.Call) and parent.func is node or isinstance(parent, ast.Expr):
            continue  # model(x); a bare ``model`` statement, which does nothing
        if isinstance(parent, ast.Attribute) and parent.attr in _SAFE_USES and _chain_safe(uses, parent):
            continue  # model.eval(), model.load_state_dict(...), model.parameters()
        if isinstance(parent, ast.Attribute) and info is not None and _own_call(uses, parent) and \
                keeps_itself(info, parent.attr):
            continue  # model.log_probs(x) of a method that moves nothing
        return False
    return True


def _own_call(uses: _Uses, attr: ast.Attribute) -> bool:
    """Is ``attr`` (``model.log_probs``) called right there?"""
    call = uses.parents.get(id(attr))
    return isinstance(call, ast.Call) and call.func is attr


def _chain_safe(uses: _Uses, attr: ast.Attribute) -> bool:
    """Is the harmless method ``attr`` of a model (``model.half``) not followed by the
    method of another kind that its result, the module itself, is given
    (``model.half().cuda()`` moves the model)?"""
    while attr.attr in MODULE_SELF:
        call = uses.parents.get(id(attr))
        up = uses.parents.get(id(call)) if isinstance(call, ast.Call) and call.func is attr else None
        if not isinstance(up, ast.Attribute):
            return True
        if up.attr not in _SAFE_USES:
            return False
        attr = up
    return True


def _shown_a_module(m: Walker, ff: FileFlow, uses: _Uses, name: str, call: ast.Call) -> bool:
    """Is what ``call`` builds shown to be a module with weights?  An instance of a class
    of another package (``miners.MultiSimilarityMiner()``, not torch's or torchvision's, nor
    a class of the run) may hold no weights at all: only a use of ``name`` as a module in the
    file (``name.eval()``, ``name.parameters()``, ``name.load_state_dict(...)``) shows it is
    one.  Other constructions are judged by :func:`_global_model`."""
    q = m.qualname(call.func)
    if q is None or q.startswith(("torch.", "torchvision.")) or ff.resolve(q) is not None:
        return True
    return any(isinstance(parent, ast.Attribute) and parent.attr in _SAFE_USES
               for _, parent in uses.loads.get(name, ()))


def _sets_default_device(m: Walker) -> bool:
    return any(
        m.qualname(s.node.func) in ("torch.set_default_device", "torch.set_default_tensor_type")
        for name in ("set_default_device", "set_default_tensor_type")
        for s in m.calls_by_tail.get(name, ())
    )


def check(ctx: Context) -> Iterable[Finding]:
    m = ctx.syntax
    if _sets_default_device(m):
        return
    found = list(_local(ctx, m))
    seen = {(f.line, f.column) for f in found}
    yield from found
    for f in [*_batch_item_on_the_cpu(ctx), *_cpu_loader_item(ctx), *_made_on_the_cpu(ctx, m),
              *_model_left_behind(ctx), *_handed_to_a_model(ctx), *_met_in_a_helper(ctx),
              *_made_for_another_file(ctx), *_unregistered_layer_called(ctx)]:
        if (f.line, f.column) not in seen:
            seen.add((f.line, f.column))
            yield f


def _local(ctx: Context, m: Walker) -> Iterator[Finding]:
    """The model and its input bound in the calling scope (see the docstring)."""
    uses: _Uses | None = None
    for site in m.calls:
        call = site.node
        func = call.func
        fed = _fed_by_method(ctx.flow, call)
        if fed is not None:  # ``model.log_probs(data)`` of a method that runs ``self(x)``
            uses = uses or _Uses(m)
            yield from _left_unmoved(ctx, m, uses, fed[0], fed[1], site)
            continue
        if not isinstance(func, ast.Name) or func.id in ("self", "cls") or not call.args:
            continue
        name = func.id
        if name in m.classes or m.qualname(func) is not None:
            continue  # a class being constructed, or an imported function
        args = [a for a in call.args if not isinstance(a, ast.Starred)]
        if _model_moved_here(m, ctx.flow, name, site) and not _wrapper_at(ctx.flow, call):
            unmet = _unmet_inputs(ctx.flow, call)
            cpu = next((a for a in args if id(a) not in unmet and _cpu_tensor(m, ctx.flow, a, site)), None)
            if cpu is not None and not _moved_by_forward(ctx.flow, call, cpu):
                x = ctx.text(cpu)
                yield ctx.finding(
                    CODE,
                    call,
                    f"`{name}` was moved to the device but `{x}` was built on the CPU and "
                    "never moved: on a GPU machine this call fails with \"Input type "
                    "(torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be "
                    f"the same\"; move it too (`{x}.to(device)`)",
                )
            continue
        uses = uses or _Uses(m)
        yield from _left_unmoved(ctx, m, uses, name, args, site)


def _left_unmoved(ctx: Context, m: Walker, uses: _Uses, name: str, args: list[ast.expr],
                  site: Site[ast.Call]) -> Iterator[Finding]:
    """The finding of :func:`_local` for a model ``name`` the file never moves, called at
    ``site`` (directly, or through a method of its class that runs it on ``args``) on an
    input the file moved."""
    call = site.node
    moved = next((a for a in args if _moved_input(m, ctx.flow, a, site)), None)
    if moved is None:
        return
    b = _global_model(m, ctx.flow, name, site)
    if b is None or pos(b.stmt) > site.pos and b.ctx.scope is site.ctx.scope:
        return
    info = _model_class(ctx.flow, call)
    if not _never_moved(uses, name, info) or not _shown_a_module(m, ctx.flow, uses, name, b.value):
        return
    if isinstance(b.value, ast.Call) and builds_weights(ctx.flow, b.value) is False:
        return  # (a module without weights computes where its input is)
    x = ctx.text(moved)
    yield ctx.finding(
        CODE,
        call,
        f"`{x}` is moved to the device but `{name}` never is: on a GPU machine this call "
        "fails with \"Input type (torch.cuda.FloatTensor) and weight type "
        f"(torch.FloatTensor) should be the same\"; move the model once (`{name}.to(device)`)",
    )


def _fed_by_method(ff: FileFlow, call: ast.Call) -> tuple[str, list[ast.expr]] | None:
    """``model.log_probs(data)``: the model's name and the argument, when the method, of
    the model's module class of the run, hands that argument to the module's weights as
    ``model(x)`` does its first (:func:`_weighed_inputs`: ``self(x)``, ``self.forward(x)``,
    a layer of its own with weights)."""
    func = call.func
    if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name) or \
            func.value.id in ("self", "cls"):
        return None
    res = ff.scope_of(call)
    c = res.calls.get(id(call)) if res is not None else None
    fed = _weighed_inputs(ff, c) if c is not None else []
    return (func.value.id, [a for a, _ in fed]) if fed else None


def _model_class(ff: FileFlow, call: ast.Call) -> ClassInfo | None:
    """The module class of the run of the model ``call`` runs (``model(x)``, or the
    receiver of ``model.log_probs(x)``), as the device-flow analysis knows it."""
    res = ff.scope_of(call)
    c = res.calls.get(id(call)) if res is not None else None
    if c is None:
        return None
    model = c.receiver if c.callee is Callee.METHOD else c.func
    info = ff.class_of(model) if model is not None else None
    return info if info is not None and info.is_module else None


def _batch_item_on_the_cpu(ctx: Context) -> Iterator[Finding]:
    """A model the device-flow analysis places on an accelerator, called on an item of a
    loader's batch that is never moved while another item of the same batch is."""
    ff: FileFlow = ctx.flow
    scopes = list(ff.results())  # (all interpreted first: the file's call sites known)
    # (the calls first: few files have one, and the loaders' test walks the whole tree)
    fed = _fed_moved_items(scopes)
    if fed and not _no_loader_moves(ff.tree):
        fed = {}
    # a function as the file's calls see it: ``train(model, train_loader)`` iterates a loader
    called = [r for r in (ff.as_called(r, _LOADER) for r in scopes) if r is not None]
    for res in [*scopes, *called]:
        moves = batch_moves(res)
        if fed:
            yield from _other_loader_item(ctx, ff, res, fed, moves)
        if not moves:
            continue
        for c in res.calls.values():
            if not c.args or not c.node.args or isinstance(c.node.args[0], ast.Starred):
                continue
            # the model's input, its first argument (a later one may be wanted on the CPU:
            # ``decoder(features, captions, lengths)`` packs with ``lengths``)
            # (a method of the class called on ``self`` is given ``self`` first)
            own = _own_method(c)
            if c.callee is not Callee.MODULE and not own and c.callee is not Callee.UNRESOLVED:
                continue
            a, v = c.node.args[0], c.args[1 if own else 0]
            loop = unmoved_item(v) or joined_item(res, v)
            if loop is None or id(loop) not in moves or whole_batch_of(a, loop) or _unsure_item(ff, res, a, loop):
                continue
            if not own and of_unknown_kind(res, a, loop) and not (c.func is not None and ff.classes_of(res, c.func)):
                continue  # (an item of no known kind, to a model whose ``forward`` is not seen)
            if c.callee is Callee.UNRESOLVED and not own:
                built = _constructed_call(ff, res, c)  # (``self.model(x)``, the model given to the class)
                if built is None:
                    continue
                c = built
            via = _through_own_method(ff, res, c) if own else None
            # (last: it may interpret the callers)
            moved = via[0] if via is not None else None if own else _model_at_call(ff, res, c)
            if moved is not None:
                yield _item_finding(ctx, c, a, v, moved, moves[id(loop)][0],
                                    via[1] if via is not None else None)


def _unsure_item(ff: FileFlow, res: ScopeResult, a: ast.expr, loop: ast.AST) -> bool:
    """Is the item ``a`` of the batch of ``loop`` moved by a statement of the scope,
    ``a.to(device)`` or ``a.cuda()``, whose result is discarded, while the loader is not
    one of this file whose items are surely tensors (torch's ``DataLoader`` with no
    ``collate_fn``: its default collation gives tensors)?  A tensor's move is lost there
    (FRY002 says so where it holds the item to be a tensor), but an object's may be in
    place (a DGL graph of DGL 0.4, a PyG ``Data``, a collate function's batch class): where
    the item is, is not known."""
    if not isinstance(a, ast.Name) or not _moved_by_statement(res, a):
        return False
    it = loop if isinstance(loop, ast.Call) else getattr(loop, "iter", None)  # (``enumerate(...)``)
    while isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and \
            it.func.id in _LOOP_WRAPPERS and it.args:
        it = it.args[0]
    loader = res.value(it) if it is not None else None
    if loader is None or not loader.is_(Kind.LOADER) or len(loader.origins) != 1:
        return True
    made = loader.origins[0]
    node = made.node
    return made.op is not Op.MADE or made.path is not None or not isinstance(node, ast.Call) or \
        ff.qualname(node.func) not in _TORCH_LOADERS or not _plain_loader(ff.tree, node)


_LOADER = frozenset((Kind.LOADER,))
_TORCH_LOADERS = ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader")


def _moved_by_statement(res: ScopeResult, a: ast.Name) -> bool:
    """Does a statement of the scope move ``a``, discarding the result (``a.to(device)``,
    ``a.cuda()``)?"""
    for n in ast.walk(res.node):
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call):
            f = n.value.func
            if isinstance(f, ast.Attribute) and f.attr in ACCEL_MOVE_NAMES and \
                    isinstance(f.value, ast.Name) and f.value.id == a.id:
                return True
    return False


def _fed_moved_items(scopes: list[ScopeResult]) -> dict[int, CallEvent]:
    """The models of the file called on an item of a loader's batch moved to a device
    (``input = input.to(DEVICE)`` ... ``self.model(input)``), keyed by the model's move
    (the ``id`` of its node), with such a call."""
    out: dict[int, CallEvent] = {}
    for res in scopes:
        for c in res.calls.values():
            if c.callee is not Callee.MODULE or not c.args or not c.node.args:
                continue
            a, model = c.args[0], c.func
            if not a.is_(Kind.BATCH) or not a.places or not a.may_live(Where.ACCEL) or \
                    any(p.symbolic for p in a.places) or ev.latest(a, Op.MOVED) is None:
                continue
            placed = ev.latest(model, Op.MOVED, Op.LOADED)
            if placed is not None and placed.node is not None and placed.path is None:
                out.setdefault(id(placed.node), c)
    return out


def _no_loader_moves(tree: ast.Module) -> bool:
    """Does no loader of the file put its batches anywhere but where its dataset made them
    (every ``DataLoader(...)`` without a ``collate_fn``, no ``__getitem__`` of the file
    moving what it gives)?  Then two loaders' batches come the same way."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and tail(node.func) == "DataLoader" and not _plain_loader(tree, node):
            return False
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "__getitem__" and any(
                isinstance(n, ast.Call) and tail(n.func) in ACCEL_MOVE_NAMES for n in ast.walk(node)):
            return False
    return True


def _other_loader_item(ctx: Context, ff: FileFlow, res: ScopeResult, fed: dict[int, CallEvent],
                       moves: dict[int, list[CallEvent]]) -> Iterator[Finding]:
    """A model on the device called on an item of a loader's batch none of whose items is
    moved (``moves``: the scope's moves of batch items, by loop), when another call of the
    file gives the same model (the same move of it) an item of a batch moved first
    (``train()`` moves its batches, ``validation()`` takes
    ``next(iter(self.valid_dataloader))`` and does not)."""
    for c in res.calls.values():
        given = _loader_input(ff, c)
        if given is None:
            continue
        a, v = given
        loop = unmoved_item(v)
        if loop is None or id(loop) in moves or whole_batch_of(a, loop) or _unsure_item(ff, res, a, loop) \
                or c.callee is Callee.MODULE and not _has_weights(ctx, c):
            continue
        moved = _model_at_call(ff, res, c) if c.callee is Callee.MODULE else \
            _model_on_device(ff, res, c.receiver, at=c.node) if c.receiver is not None else None
        other = fed.get(id(moved.node)) if moved is not None and moved.node is not None else None
        if moved is None or other is None or other.node is c.node:
            continue
        yield _other_loader_finding(ctx, c, a, v, moved, other)


def _loader_input(ff: FileFlow, c: CallEvent) -> tuple[ast.expr, Value] | None:
    """The input of ``c`` that :func:`_other_loader_item` weighs: a module's first
    argument, or the argument a method of a module class of the run hands to the module's
    weights (:func:`_weighed_inputs`: ``model.stn(data)``, where ``stn`` runs
    ``self.localization(x)``)."""
    if c.callee is Callee.METHOD:
        return next(iter(_weighed_inputs(ff, c)), None)
    if c.callee is not Callee.MODULE or not c.args or not c.node.args or isinstance(c.node.args[0], ast.Starred):
        return None
    return c.node.args[0], c.args[0]


def _other_loader_finding(ctx: Context, c: CallEvent, a: ast.expr, v: Value, moved: Origin,
                          other: CallEvent) -> Finding:
    """The finding of :func:`_other_loader_item`."""
    name, x = ctx.text(c.node.func), ctx.text(a)
    f = ctx.finding(
        CODE, c.node,
        f"`{name}` is on the device but `{x}`, an item of a loader's batch, is never moved, while "
        f"the file moves the batches it gives `{name}` elsewhere (line {other.node.lineno}): on a GPU "
        "machine this call fails with \"Input type (torch.FloatTensor) and weight type "
        f"(torch.cuda.FloatTensor) should be the same\"; move it too (`{x}.to(device)`)")
    steps = [ev.step(ctx, moved, f"`{name}` is {_placed(moved)} at {ev.where(moved)}")]
    batch = ev.first(v, Op.BATCH)
    if batch is not None:
        steps.append(ev.step(ctx, batch, f"`{x}` comes from the batch at {ev.where(batch)} and is never moved"))
    steps.append(ev.at(ctx, other.node, "the model is given an item of a batch moved to the device here"))
    steps.append(ev.at(ctx, c.node, f"they meet in `{name}(...)` here"))
    return _one_gpu_wording(ctx, c, replace(f, evidence=tuple(steps)))


def _through_own_method(ff: FileFlow, res: ScopeResult,
                        c: CallEvent) -> tuple[Origin, CallEvent] | None:
    """Why the model is on an accelerator when ``c``, a call ``self.step(x)`` from a method
    of a class of this file, reaches a method of that class (defined once in the file: no
    subclass here overrides it) that hands its first argument unchanged to a model as that
    model's first argument (``return self.model(inputs)``), with that call; None when not
    known."""
    f = c.node.func
    assert isinstance(f, ast.Attribute)
    info = ff.method_of.get(id(res.node))
    found = info.method(f.attr) if info is not None else None
    if found is None or found[0].ff is not ff or not _defined_once(ff.tree, f.attr):
        return None
    inner_res = ff.result(found[1], found[0])
    for inner in inner_res.calls.values():
        if inner.callee is Callee.MODULE and inner.args and inner.args[0].places == {param(1)}:
            moved = _model_on_device(ff, inner_res, inner.func, at=inner.node)
            return (moved, inner) if moved is not None else None
    return None


def _constructed_call(ff: FileFlow, res: ScopeResult, c: CallEvent) -> CallEvent | None:
    """``self.model(x)`` in a method of a plain class of the file that keeps the model its
    constructor is given (``self.model = model``), as the call of the module that every
    construction of the class in the run passes (:meth:`FileFlow.constructed_attr`:
    ``Predictor(net.to(device))``, in this file or one that imports it); None otherwise."""
    f = c.node.func
    if c.callee is Callee.MODULE or not isinstance(f, ast.Attribute) or not isinstance(f.value, ast.Name) \
            or f.value.id != "self" or _static(res.node):
        return None
    info = ff.method_of.get(id(res.node))
    model = ff.constructed_attr(info, f.attr) if info is not None else None
    if model is None or model.kinds != frozenset((Kind.MODULE,)) or len(c.args) != len(c.node.args):
        return None
    return c._replace(callee=Callee.MODULE, func=model)


def _static(fn: ast.AST) -> bool:
    """Is ``fn`` a static or class method (its first parameter is not the instance)?"""
    return any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
               for d in getattr(fn, "decorator_list", ()))


def _own_method(c: CallEvent) -> bool:
    """Whether ``c`` calls a method on ``self`` (``self.step(x)``) that the analysis
    resolved, given ``self`` as its first argument."""
    f = c.node.func
    return c.callee is Callee.FUNCTION and isinstance(f, ast.Attribute) \
        and isinstance(f.value, ast.Name) and f.value.id == "self" \
        and len(c.args) == len(c.node.args) + 1 and c.args[0].places == {param(0)}


def _defined_once(tree: ast.Module, name: str) -> bool:
    """Whether the file defines one function or method named ``name``."""
    return sum(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name
               for n in ast.walk(tree)) == 1


def _module_run(c: CallEvent) -> CallEvent | None:
    """``c`` as the call of a module it is (``model(x)``), or as the one it makes
    (``torch.jit.trace(model, x)``, ``writer.add_graph(model, x)``: the module given first
    called on the input given second, at the place of ``c``), or ``self.forward(x)`` in a
    module's method, which runs the module on ``x`` as ``self(x)`` does; None for any
    other call."""
    if c.callee is Callee.MODULE:
        return c
    func = c.node.func
    forward = _own_forward(c)
    if forward is not None:
        return forward
    runs = c.qualname in vocab.RUNS_MODULE if c.callee is Callee.TORCH else \
        isinstance(func, ast.Attribute) and func.attr in vocab.RUNS_MODULE_METHODS
    if not runs or len(c.node.args) < 2 or len(c.args) < 2 or \
            any(isinstance(a, ast.Starred) for a in c.node.args[:2]) or not c.args[0].is_(Kind.MODULE):
        return None
    node = ast.copy_location(ast.Call(func=c.node.args[0], args=[c.node.args[1]], keywords=[]), c.node)
    node.end_lineno, node.end_col_offset = c.node.end_lineno, c.node.end_col_offset
    return c._replace(node=node, callee=Callee.MODULE, func=c.args[0], args=(c.args[1],), keywords=())


def _own_forward(c: CallEvent) -> CallEvent | None:
    """``self.forward(x, ...)`` in a method of a module class (the class's ``forward``
    given ``self`` first, or the method of the module ``self`` is) as the call
    ``self(x, ...)``, at the place of ``c``; None for any other call."""
    func = c.node.func
    if not isinstance(func, ast.Attribute) or func.attr != "forward" or not isinstance(func.value, ast.Name):
        return None
    if c.callee is Callee.FUNCTION and c.args and c.args[0].places == {param(0)}:
        module, args = c.args[0], c.args[1:]
    elif c.callee is Callee.METHOD and c.receiver is not None and c.receiver.places == {param(0)}:
        module, args = c.receiver, c.args
    else:
        return None
    if not module.is_(Kind.MODULE) or any(isinstance(a, ast.Starred) for a in c.node.args):
        return None
    node = ast.copy_location(ast.Call(func=func.value, args=c.node.args, keywords=c.node.keywords), c.node)
    node.end_lineno, node.end_col_offset = c.node.end_lineno, c.node.end_col_offset
    return c._replace(node=node, callee=Callee.MODULE, func=module, args=tuple(args))


def _cpu_loader_item(ctx: Context) -> Iterator[Finding]:
    """A model the device-flow analysis places on an accelerator, called on an item of a
    batch that is never moved, from a loader of this file over a torchvision dataset
    (whose items are tensors its transform made on the CPU)."""
    ff: FileFlow = ctx.flow
    for res in list(ff.results()):  # (all interpreted first: the file's call sites known)
        for call in res.calls.values():
            c = _module_run(call) or (call if call.callee is Callee.UNRESOLVED else None)
            if c is None or not c.args or not c.node.args or isinstance(c.node.args[0], ast.Starred):
                continue
            a, v = c.node.args[0], c.args[0]
            loop = unmoved_item(v)
            if loop is None or whole_batch_of(a, loop):
                continue
            made = _torchvision_loader(ff, res, loop)
            if made is not None and c.callee is Callee.UNRESOLVED:
                c = _constructed_call(ff, res, c)
            if made is None or c is None or not _has_weights(ctx, c):
                continue
            moved = _model_at_call(ff, res, c)  # (last: it may interpret the callers)
            if moved is not None:
                yield _loader_finding(ctx, c, a, v, moved, made)


#: the ``(data, target)`` loops the loader may be wrapped in
_LOOP_WRAPPERS = frozenset({"enumerate", "tqdm", "iter"})


def _torchvision_loader(ff: FileFlow, res: ScopeResult, loop: ast.AST) -> tuple[Origin, str] | None:
    """The ``DataLoader(...)`` of this file a loop iterates (as it is, or through
    ``enumerate``/``tqdm``), when it yields what a dataset of ``torchvision.datasets`` gives
    (a transform of torchvision that makes the tensor on the CPU, no ``collate_fn``, no
    ``Lambda``): where it was built and the dataset's name."""
    it = loop if isinstance(loop, ast.Call) else getattr(loop, "iter", None)  # (``enumerate(...)``)
    while isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and \
            it.func.id in _LOOP_WRAPPERS and it.args:
        it = it.args[0]
    loader = res.value(it) if it is not None else None
    if loader is None or not loader.is_(Kind.LOADER) or loader.item is not None or len(loader.origins) != 1:
        return None
    made = loader.origins[0]
    node = made.node
    home = _loader_home(ff, made)
    if made.op is not Op.MADE or home is None or not isinstance(node, ast.Call):
        return None
    where = home.scope_of(node)
    data = node.args[0] if node.args else kwarg(node, "dataset")
    if where is None or data is None or not _plain_loader(home.tree, node):
        return None
    dataset = where.value(data)
    if dataset is None or not dataset.origins:
        return None
    if len(dataset.origins) == 1:
        name = _cpu_torchvision_dataset(home, dataset.origins[0])
        return (made, name) if name is not None else None
    # one dataset per arm of a branch (``if args.dataset == "mnist": ... else: ...``): every
    # binding of the name in the loader's scope (the value keeps only a few origins)
    built = _bindings(where.node, data.id) if isinstance(data, ast.Name) else None
    names = [_cpu_torchvision_dataset(home, o) if o is not None else None
             for b in built or () for o in _made_by(home, b)]
    if not built or not names or any(n is None for n in names):
        return None
    return made, "` or `".join(dict.fromkeys(n for n in names if n is not None))


def _loader_home(ff: FileFlow, made: Origin) -> FileFlow | None:
    """The analysis of the file of the run that built the loader ``made`` says: this
    file's, or another file's whose function returned it (``loader =
    utils.get_loader(n)``, its ``DataLoader(...)`` and dataset read there); None when that
    file is not at hand."""
    if made.path is None or made.path == ff.path:
        return ff
    home = ff.project.file_flow(made.path) if ff.project is not None else None
    return None if home is ff else home


def _bindings(scope: ast.AST, name: str) -> list[ast.expr] | None:
    """The values ``scope`` (not a function nested in it) assigns to ``name``, each by a
    plain ``name = value``; None when another statement binds it (a loop, a ``with``, an
    augmented or tuple assignment, a ``global`` of a function)."""
    out: list[ast.expr] = []
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            if isinstance(scope, ast.Module) and any(
                    isinstance(g, ast.Global) and name in g.names for g in ast.walk(n)):
                return None
            continue
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and n.targets[0].id == name:
            out.append(n.value)
            todo.append(n.value)
            continue
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
            return None
        todo.extend(ast.iter_child_nodes(n))
    return sorted(out, key=lambda e: (e.lineno, e.col_offset))


def _made_by(ff: FileFlow, node: ast.expr) -> list[Origin | None]:
    """The origin of the value of ``node``, a call (or ``a if c else b`` of calls), one per
    call (None: not a call, or not of one known origin)."""
    if isinstance(node, ast.IfExp):
        return _made_by(ff, node.body) + _made_by(ff, node.orelse)
    res = ff.scope_of(node) if isinstance(node, ast.Call) else None
    v = res.value(node) if res is not None else None
    return [v.origins[0] if v is not None and len(v.origins) == 1 else None]


def _cpu_torchvision_dataset(ff: FileFlow, origin: Origin) -> str | None:
    """The class name of the dataset of ``torchvision.datasets`` that ``origin`` built, of
    this file, whose transform makes its tensors on the CPU; None when not so."""
    call, name = origin.node, origin.text.split("(", 1)[0]
    if origin.op is not Op.RETURNED or origin.path is not None or not isinstance(call, ast.Call) \
            or not name.startswith("torchvision.datasets."):
        return None
    home = ff.scope_of(call)
    return name.rsplit(".", 1)[-1] if home is not None and _cpu_transforms(home, call) else None


def _plain_loader(tree: ast.Module, node: ast.Call) -> bool:
    """No ``collate_fn`` given to the loader, nor in a ``**kwargs`` of it (a name every
    binding and ``update`` of which in the file is a dict literal without one)."""
    return all(k.arg != "collate_fn" and (k.arg is not None or _no_collate(tree, k.value, 0))
               for k in node.keywords)


def _no_collate(tree: ast.Module, node: ast.expr, depth: int) -> bool:
    """Is ``node`` a dict literal (or ``a if c else b`` of them, or a name bound only to
    such) whose keys are literal and hold no ``collate_fn``?"""
    if depth > 3:
        return False
    if isinstance(node, ast.IfExp):
        return _no_collate(tree, node.body, depth) and _no_collate(tree, node.orelse, depth)
    if isinstance(node, ast.Dict):
        return all(_no_collate(tree, v, depth + 1) if k is None else
                   isinstance(k, ast.Constant) and k.value != "collate_fn"
                   for k, v in zip(node.keys, node.values, strict=True))
    if not isinstance(node, ast.Name):
        return False
    found = False
    for n in ast.walk(tree):
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            for t in targets:
                if isinstance(t, ast.Name) and t.id == node.id:
                    if n.value is None or isinstance(n, ast.AugAssign) or not _no_collate(tree, n.value, depth + 1):
                        return False
                    found = True
                elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == node.id \
                        and not (isinstance(t.slice, ast.Constant) and t.slice.value != "collate_fn"):
                    return False
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("update", "setdefault") \
                and isinstance(n.func.value, ast.Name) and n.func.value.id == node.id:
            if n.func.attr == "setdefault" or any(k.arg in (None, "collate_fn") for k in n.keywords) \
                    or not all(_no_collate(tree, a, depth + 1) for a in n.args):
                return False
    return found


def _cpu_transforms(res: ScopeResult, dataset: ast.Call) -> bool:
    """Does the dataset's ``transform=`` make its tensor on the CPU (``ToTensor()``, or a
    ``Compose`` of torchvision transforms holding one), and no other transform than
    that and ``target_transform=None`` apply?"""
    seen = False
    for k in dataset.keywords:
        if k.arg is None:
            return False
        if k.arg == "transform":
            v = res.value(k.value)
            if v is None or v.call is None or v.call.places != {CPU}:
                return False
            seen = True
        elif "transform" in k.arg and not (isinstance(k.value, ast.Constant) and k.value.value is None):
            return False
    return seen


def _loader_finding(ctx: Context, c: CallEvent, a: ast.expr, v: Value, moved: Origin,
                    loader: tuple[Origin, str]) -> Finding:
    name, x = ctx.text(c.node.func), ctx.text(a)
    made, dataset = loader
    f = ctx.finding(
        CODE, c.node,
        f"`{name}` is on the device but `{x}`, an item of the batch of a loader over "
        f"torchvision's `{dataset}` (tensors made on the CPU), is never moved: on a GPU machine "
        "this call fails with \"Input type (torch.FloatTensor) and weight type "
        f"(torch.cuda.FloatTensor) should be the same\"; move it (`{x}.to(device)`)")
    batch = ev.first(v, Op.BATCH)
    steps = [ev.step(ctx, moved, f"`{name}` is {_placed(moved)} at {ev.where(moved)}"),
             ev.step(ctx, made, f"the loader is built at {ev.where(made)} over torchvision's "
                     f"`{dataset}`, whose transform makes its tensors on the CPU")]
    if batch is not None:
        steps.append(ev.step(ctx, batch, f"`{x}` comes from its batch at {ev.where(batch)} and is never moved"))
    steps.append(ev.at(ctx, c.node, f"they meet in `{name}(...)` here"))
    return _one_gpu_wording(ctx, c, replace(f, evidence=tuple(steps)))


def _made_on_the_cpu(ctx: Context, m: Walker) -> Iterator[Finding]:
    """A model the device-flow analysis places on an accelerator (a move it sees, in this
    scope, in another method of the class, or in every caller), called on a tensor this
    file made on the CPU (a factory, ``torch.tensor``, ``from_numpy``) and never moved."""
    ff: FileFlow = ctx.flow
    found: list[Finding] = []
    for res in list(ff.results()):  # (all interpreted first: the file's call sites known)
        for last in res.calls.values():
            # the call as the loop's fixed point sees it, then as its first run does
            first = first_run(res, last.node)
            for c in (last, first) if first is not None else (last,):
                f = _made_here(ctx, ff, res, c, c is first) or _later_made(ctx, ff, res, c, c is first)
                if f is not None:
                    found.append(f)
                    break
    if found and not any(isinstance(n, (ast.With, ast.AsyncWith)) and any(
            isinstance(i.context_expr, ast.Call) and m.qualname(i.context_expr.func) == "torch.device"
            for i in n.items) for n in ast.walk(ctx.tree)):  # (a block's default device)
        yield from found


def _made_here(ctx: Context, ff: FileFlow, res: ScopeResult, c: CallEvent, first: bool) -> Finding | None:
    """The finding of :func:`_made_on_the_cpu` for one call (``first``: as the first run of
    its loop sees it), or None."""
    c = _module_run(c) or c  # (``torch.jit.trace(model, example)`` runs ``model(example)``)
    given = _input(c) if c.callee is Callee.UNRESOLVED else None
    if given is not None and (_cpu_made(given[1]) or _tokenized(res, *given)):
        c = _constructed_call(ff, res, c) or c  # (``self.model(x)``, the model given to the class)
    generating = _generating(ff, c)
    model = c.func if c.callee is Callee.MODULE else generating or _feeding_method(ff, c)
    arg = (_generated_from(c) if generating is not None else _input(c)) if model is not None else None
    if model is not None and generating is None and c.callee is Callee.METHOD:
        arg = next(((a, v) for a, v in _weighed_inputs(ff, c) if _cpu_made(v) or _tokenized(res, a, v)), None)
    item = _item_of_sequence(res, c) if model is not None and generating is None \
        and c.callee is Callee.MODULE else None
    if item is not None:
        arg = (c.node.args[0], c.args[0])
    unseen = model is None and _unseen_generate(c)
    if unseen:  # (a global's ``generate`` the analysis could not place: only an entry arm does)
        model, arg = c.receiver, _generated_from(c)
    if model is None or arg is None:
        return None
    a, v = arg
    made = (_cpu_made(v) or _tokenized(res, a, v) or _joined_with_tokens(v) or _param_batch_item(ff, res, v)
            if item is None else _item_made(ff, res, v, item))
    unpacked = _unpacked_made(ff, res, v) if made is None and item is None else None
    if unpacked is not None and unpacked[0].path is None:
        made = unpacked[0]  # (made in another file: reported there, where the fix goes)
    mapped = _mapped_input(c) if made is None and generating is None and c.callee is Callee.MODULE else None
    if mapped is not None:
        a, made = mapped
    if made is None or c.callee is Callee.MODULE and not _has_weights(ctx, c):
        return None
    if id(a) in number_read_args(ff, res, c):
        return None  # (``self.pos(torch.tensor(0), ...)`` of a ``forward`` that only slices with it)
    moved = None if unseen else \
        _model_at_call(ff, res, c) if c.callee is Callee.MODULE else \
        _model_on_device(ff, res, model, at=c.node)
    if moved is None and (_cpu_made(v) or _tokenized(res, a, v) or _joined_with_tokens(v)):
        moved = _entry_arm_model(ff, res, c, model)
    if moved is None or other_arm_of_move(ff, c.node, moved) or off_device_arm(ff, [c.node]) or \
            _moved_in_another_test(ff, res, moved) or flag_arms_apart(ff, c.node, res.node, model):
        return None  # (or in the arm of ``if torch.cuda.is_available():`` that moves nothing)
    if isinstance(a, ast.Starred):
        return _made_finding(ctx, c, a.value, moved, made, first, f"{ctx.text(a.value)}[{item}]")
    return _made_finding(ctx, c, a, moved, made, first, mapping=mapped is not None,
                         handed=unpacked[1] if unpacked is not None else None)


_TEST_CASES = frozenset({"unittest.TestCase", "unittest.case.TestCase"})


def _moved_in_another_test(ff: FileFlow, res: ScopeResult, moved: Origin) -> bool:
    """Is ``moved`` (a move of the model) in another test method of the ``unittest``
    ``TestCase`` whose method ``res`` is?  unittest runs each test method (a method whose
    name starts with ``test``) on an instance of its own, after ``setUp``: a move in
    ``test_sample`` leaves the model ``test_forward`` gets where ``setUp`` built it.

    >>> from torchferry.check.flow import analyze
    >>> src = ("import unittest\\nclass T(unittest.TestCase):\\n    def test_a(self):\\n"
    ...        "        self.m.cuda()\\n    def test_b(self):\\n        pass\\n")
    >>> ff = analyze(ast.parse(src), "t.py")
    >>> b = ff.tree.body[1].body[1]
    >>> moved = Origin(Op.MOVED, 4, 8, "self.m.cuda()", node=b)
    >>> _moved_in_another_test(ff, ff.result(b), moved)
    True
    """
    cls = ff.method_of.get(id(res.node))
    if cls is None or moved.path is not None or not any(
            (c.ff.qualname(b) or "") in _TEST_CASES for c in cls.lineage() for b in c.node.bases):
        return False
    return any(fn is not res.node and name.startswith("test")
               and fn.lineno <= moved.line <= (fn.end_lineno or fn.lineno)
               for name, fn in cls.methods.items())


def _later_made(ctx: Context, ff: FileFlow, res: ScopeResult, c: CallEvent, first: bool) -> Finding | None:
    """The finding of :func:`_made_on_the_cpu` for an input of the module call ``c`` after
    its first (:func:`_later_inputs`: ``rnn(x, (h0, c0))``, ``gcn(*inputs)``'s ``adj``), or
    None."""
    if c.callee is not Callee.MODULE or not _has_weights(ctx, c):
        return None
    for a, v, item in _later_inputs(ff, res, c):
        made = _cpu_made(v) if item is None else _item_made(ff, res, v, item)
        unpacked = _unpacked_made(ff, res, v) if made is None and item is None else None
        if unpacked is not None and unpacked[0].path is None:
            made = unpacked[0]  # (made in another file: reported there)
        if made is None or _moves_its_input(ff, c.func, c.node, a):
            continue
        moved = _model_on_device(ff, res, c.func, at=c.node)
        if moved is None or other_arm_of_move(ff, c.node, moved) or off_device_arm(ff, [c.node]) \
                or flag_arms_apart(ff, c.node, res.node, c.func):
            return None
        x = f"{ctx.text(a)}[{item}]" if item is not None else None
        return _made_finding(ctx, c, a, moved, made, first, x, later=True,
                             handed=unpacked[1] if unpacked is not None else None)
    return None


def _later_inputs(ff: FileFlow, res: ScopeResult, c: CallEvent) -> list[tuple[ast.expr, Value, int | None]]:
    """The inputs of the module call ``c`` after its first that meet the module's weights:
    (the argument, its value, the item of ``*inputs`` it is or None).  For a ``torch.nn`` layer with weights, every tensor argument and
    the items of a tuple among them (the hidden state ``(h0, c0)`` of ``nn.LSTM``); for a
    module every make of which is a class of the run, the arguments its ``forward`` hands
    to its weights in every such class (:func:`weighed_params`: not the lengths it gives
    ``pack_padded_sequence``, nor an index it uses on the CPU), also the items of
    ``model(*inputs)``; none for a module of unknown class."""
    layer = _torch_layer(c.func)
    if layer is not None:
        if layer not in PARAM_LAYERS:
            return []
        out: list[tuple[ast.expr, Value, int | None]] = []
        for a, v in [*zip(c.node.args[1:], c.args[1:], strict=False),
                     *((k.value, w) for k, (n, w) in zip(c.node.keywords, c.keywords, strict=False) if n != "**")]:
            if isinstance(a, ast.Starred):
                return out
            items = a.elts if isinstance(a, ast.Tuple) and v.elts is not None \
                and len(a.elts) == len(v.elts) else None
            out.extend([(e, w, None) for e, w in zip(items, v.elts or (), strict=False)]
                       if items is not None else [(a, v, None)])
        return out
    classes = ff.classes_of(res, c.func)
    if not classes or any(not info.is_module or info.method("forward") is None for info in classes):
        return []
    weighed = frozenset.intersection(*(weighed_params(ff, info, "forward") for info in classes))
    if len(c.node.args) == 1 and isinstance(c.node.args[0], ast.Starred) and not c.node.keywords:
        star = c.node.args[0]
        return [(star.value, c.args[0], k - 1) for k in sorted(weighed) if k > 1]
    found = classes[0].method("forward")
    bound = bound_arguments(c.node, param_names(found[1])) if found is not None else {}
    if any(isinstance(a, ast.Starred) for a in c.node.args) or \
            any(param_names(m[1]) != param_names(found[1]) for m in
                (info.method("forward") for info in classes) if m is not None and found is not None):
        return []
    values = {id(a): v for a, v in zip(c.node.args, c.args, strict=False)}
    values.update((id(k.value), w) for k, (_, w) in zip(c.node.keywords, c.keywords, strict=False))
    return [(bound[k], values[id(bound[k])], None) for k in sorted(weighed)
            if k > 1 and k in bound and id(bound[k]) in values]


def _torch_layer(model: Value) -> str | None:
    """The class name of the ``torch.nn`` layer that made ``model`` (``LSTM`` of
    ``nn.LSTM(...)``), or None when it was not made by one."""
    made = next((o for o in reversed(model.origins) if o.op is Op.MADE), None)
    if made is None or not made.text.startswith("torch.nn."):
        return None
    return made.text.split("(", 1)[0].rsplit(".", 1)[-1]


def _item_of_sequence(res: ScopeResult, c: CallEvent) -> int | None:
    """Which item of a sequence the module ``c`` calls is given first: 0 for
    ``model(*inputs)``, ``k`` for ``model(inputs[k])`` of a parameter ``inputs`` (a
    constant ``k``); None for any other first argument."""
    if not c.node.args:
        return None
    first = c.node.args[0]
    return 0 if isinstance(first, ast.Starred) else _param_item(res, first)


def _item_made(ff: FileFlow, res: ScopeResult, v: Value, item: int, depth: int = 0) -> Origin | None:
    """Where the ``item``-th element of the sequence ``v`` was made on the CPU and never
    moved (:func:`_cpu_made`): of a tuple written out here, or, for a parameter, by every
    call of the run (followed through the callers' own parameters, three calls deep); None
    for a sequence of unknown items or when one caller passes anything else."""
    if v.elts is not None:
        return _cpu_made(v.elts[item]) if item < len(v.elts) else None
    return _from_callers(ff, res, v, depth, lambda o, c, g, d: _item_made(o, c, g, item, d))


def _model_left_behind(ctx: Context) -> Iterator[Finding]:
    """A model the analysis holds on the CPU (built with weights, never moved, nor handed
    to a call it cannot see into), called on an input moved to a device the code chose."""
    ff: FileFlow = ctx.flow
    scopes = list(ff.results())
    # (a global some function moves in place may have been moved before any call)
    moved_globals = {name for r in scopes for name in r.outer_moves}
    for res in scopes:
        for last in res.calls.values():
            first = first_run(res, last.node)  # (the fixed point, then the loop's first run)
            for c in (last, first) if first is not None else (last,):
                c = _kept_module_call(ff, res, c)
                if c.callee is not Callee.MODULE and _feeding_method(ff, c) is None and \
                        _generating(ff, c) is None:
                    break
                f = _left_here(ctx, ff, res, c, moved_globals)
                if f is not None:
                    yield f
                    break


def _kept_module_call(ff: FileFlow, res: ScopeResult, c: CallEvent) -> CallEvent:
    """``c`` as a call of a module when it calls ``self.<attr>`` of a plain class's method
    that the class's constructions in the run make a module (:meth:`FileFlow.built_at`:
    ``self.model = model`` of ``Trainer(Net())``), though the method alone cannot tell."""
    if c.callee is not Callee.UNRESOLVED or c.func.kinds is not None:
        return c
    built = ff.built_at(res, c.node.func, c.func)
    return c._replace(callee=Callee.MODULE) if built is not None and built.kinds == {Kind.MODULE} else c


def _left_here(ctx: Context, ff: FileFlow, res: ScopeResult, c: CallEvent,
               moved_globals: set[str]) -> Finding | None:
    """The finding of :func:`_model_left_behind` for one call of a module (or of a method
    of the module's class that feeds it its argument: ``layer.train(h)``), or None."""
    generating = _generating(ff, c) is not None
    arg, item = _fed_input(ff, res, c, generating)
    # the model: the called module, or the receiver of a feeding method
    module = c.callee is Callee.MODULE and not generating
    func = c.node.func if module else getattr(c.node.func, "value", None)
    model = c.func if module else c.receiver
    if arg is None or model is None or isinstance(func, ast.Name) and func.id in moved_globals:
        return None
    tensor = generating or module and _takes_tensors(model)
    found = _input_met(ff, res, c, arg, item, model, func, tensor)
    if found is None:
        return None
    a, v, moved, on_a_path = found
    if not _model_stays(ctx, ff, res, c, func, moved_globals, on_a_path):
        return None
    built = _built_on_cpu(ff, res, c, func, model, on_a_path)
    through = bool(v.places) and all(p.where is Where.PARAM for p in v.places or ())
    return _left_finding(ctx, c, a, moved, built, through) if built is not None else None


def _fed_input(ff: FileFlow, res: ScopeResult, c: CallEvent, generating: bool,
               ) -> tuple[tuple[ast.expr, Value] | None, int | None]:
    """The input ``c`` hands the model, as ``(argument, value)`` or None, and the item of
    it that counts (``model(*inputs)``: their first; ``seq[k]`` of a parameter: ``k``):
    the prompt of ``generate``, a module's input, or the moved input of a feeding method."""
    item: int | None = None
    if generating:  # (``model.generate(ids)``: the prompt, a tensor, meets the weights)
        return _generated_from(c), item
    if c.callee is Callee.MODULE:
        arg = _input(c)
        if arg is None and c.node.args:
            return (c.node.args[0], c.args[0]), 0  # ``model(*inputs)``: their first item
        if arg is not None:
            item = _param_item(res, arg[0])
        return arg, item
    arg = next(((a, v) for a, v in _weighed_inputs(ff, c)
                if _input_moved(ff, res, v) is not None), None)
    return arg, item


def _input_met(ff: FileFlow, res: ScopeResult, c: CallEvent, arg: tuple[ast.expr, Value],
               item: int | None, model: Value, func: ast.AST | None, tensor: bool,
               ) -> tuple[ast.expr, Value, Origin, bool] | None:
    """The input the model meets on a device the code chose, as ``(argument, value, move,
    on_a_path)``: ``arg``, or another tensor a metric is given; ``on_a_path`` where only
    some path moves it (a model that no path moves fails there).  None for none."""
    a, v = arg
    moved = _input_moved(ff, res, v, item=item, tensor=tensor)
    if moved is None and item is None and c.callee is Callee.MODULE and v.kinds is None and \
            _forward_takes_tensors(ff, res, model):
        moved = _input_moved(ff, res, v, tensor=True)
    if moved is None and item is None and _metric(model) and \
            not any(isinstance(x, ast.Starred) for x in c.node.args):
        # a metric's state meets every tensor it is given (``jaccard(preds, target)``)
        other = next(((x, w) for x, w in zip(c.node.args[1:], c.args[1:], strict=False)
                      if not isinstance(x, ast.Starred) and _input_moved(ff, res, w) is not None), None)
        if other is not None:
            a, v = other
            moved = _input_moved(ff, res, v)
    if moved is None and item is None and c.callee is Callee.MODULE and v.kinds is not None \
            and v.kinds <= {Kind.TENSOR, Kind.BATCH}:
        moved = flag_arm_move(ff, v, c.node)  # (moved where a fixed device flag is true)
    on_a_path = False
    if moved is None and item is None and c.callee is Callee.MODULE and isinstance(func, ast.Name) \
            and v.kinds is not None and v.kinds <= {Kind.TENSOR, Kind.BATCH}:
        # (moved on some path: a model that no path moves fails there)
        moved, on_a_path = move_on_a_path(ff, v, c.node, _names(func)), True
    return (a, v, moved, on_a_path) if moved is not None else None


def _model_stays(ctx: Context, ff: FileFlow, res: ScopeResult, c: CallEvent, func: ast.AST | None,
                 moved_globals: set[str], on_a_path: bool) -> bool:
    """Does the model the call ``func`` names stay where it was built, with weights: a name
    not handed on, aliased or moved in parts, or an attribute held unmoved (an attribute
    moves with the module that owns it, not with a plain class that holds it)?"""
    if isinstance(func, ast.Name):
        if _handed_on(ff, res, func.id) or _handed_on_around(ff, res, func.id) \
                or _items_may_move(ff.tree, res.node, func.id) or on_a_path and _aliased(res, func.id) \
                or _parts_moved(res.node, func.id):
            return False
    elif not _held_unmoved(ff, res, func) and not _submodule_of_unmoved(ff, res, func, moved_globals):
        return False
    return _has_weights(ctx, c, wrapped=True)


def _built_on_cpu(ff: FileFlow, res: ScopeResult, c: CallEvent, func: ast.AST | None,
                  model: Value, on_a_path: bool) -> Origin | None:
    """Where the model was built on the CPU and left there: by its value, where a plain
    class keeps it, or, for a global bound in each arm of ``if T:``, the arm's; None when
    unknown or a plain class's model that is no known container of weights."""
    built = _model_on_cpu(ff, res, model)
    if built is not None and not isinstance(func, ast.Name) and not (
            isinstance(built.node, ast.Call) and builds_weights(ff, built.node) is True):
        return None  # (a plain class's model: its weights known, not a container of anything)
    if built is None and not isinstance(func, ast.Name):
        built = _held_on_cpu(ff, res, func)
    if built is None and isinstance(func, ast.Name) and not on_a_path:
        # a global model bound in each arm of ``if T:``, called in an arm of ``if T:``
        chosen = global_in_arm(ff, c.node, func.id, model) if func.id not in res.params and \
            func.id not in _locals(res) else None
        built = _model_on_cpu(ff, res, chosen) if chosen is not None else None
    return built


def _parts_moved(scope: ast.AST, name: str) -> bool:
    """Does ``scope`` put a part of the model ``name`` on a device, storing a move into an
    attribute or item reached from it (``model.decoder.embed = model.decoder.embed.to(dev)``),
    or from a local name bound to one (``layers = model.decoder.layers``, then ``layers[0] =
    layers[0].to(dev)``)?  The model is then not where it was built: those parts are where
    the code put them, as a layer-by-layer calibration of a large model does.  A move counts
    as one to a device when it is ``.cuda()`` (or another accelerator's) or ``.to(d)`` with
    ``d`` written as the scope also writes a device, ``device=d``, or moves a tensor that
    is no part of the model, ``batch[0].to(d)`` (not a cast, ``.to(torch.float16)``)."""
    roots = {name} | {t.id for st in ast.walk(scope) if isinstance(st, ast.Assign)
                      and _reached_from(st.value, name) and not isinstance(st.value, ast.Name)
                      for t in st.targets if isinstance(t, ast.Name)}
    devices = _devices_written(scope, roots)
    return any(isinstance(st, ast.Assign) and _moves_to(st.value, devices) and any(
        isinstance(t, (ast.Attribute, ast.Subscript)) and _reached_from(t, *roots) for t in st.targets)
        for st in ast.walk(scope))


def _devices_written(scope: ast.AST, roots: set[str]) -> set[str]:
    """The expressions (as ``ast.dump`` writes them) that ``scope`` gives as a ``device=``
    or as the argument of ``.to()`` on a value reached from none of ``roots``."""
    out = set()
    for n in ast.walk(scope):
        if not isinstance(n, ast.Call):
            continue
        out |= {ast.dump(k.value) for k in n.keywords if k.arg == "device"}
        f = n.func
        if isinstance(f, ast.Attribute) and f.attr == "to" and len(n.args) == 1 and not n.keywords \
                and not _reached_from(f.value, *roots):
            out.add(ast.dump(n.args[0]))
    return out


def _reached_from(node: ast.expr, *names: str) -> bool:
    """Is ``node`` an attribute or item path (``m.decoder.layers[0]``) rooted at one of
    ``names``?"""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return isinstance(node, ast.Name) and node.id in names


def _moves_to(node: ast.expr, devices: set[str]) -> bool:
    """Is ``node`` a move to an accelerator (``.cuda()``) or ``.to(d)`` of ``d`` among
    ``devices``?"""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    if node.func.attr in ACCEL_MOVES:
        return True
    return node.func.attr == "to" and len(node.args) == 1 and ast.dump(node.args[0]) in devices


def _aliased(res: ScopeResult, name: str) -> bool:
    """Does the scope bind ``name``'s object to another name or a container (``net =
    model``, ``self.net = model``, ``pair = (model, opt)``)?  A move through the alias
    (``net.cuda()``) moves it, though the analysis follows the move under the alias only."""
    for st in ast.walk(res.node):
        if isinstance(st, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and st.value is not None:
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            if all(isinstance(t, ast.Name) and t.id == name for t in targets):
                continue  # (``model = model``: the same name)
            if _holds_name(st.value, name):
                return True
    return False


def _holds_name(node: ast.AST, name: str) -> bool:
    """Is ``node`` the name, or a literal container holding it (at any depth)?"""
    if isinstance(node, ast.Name):
        return node.id == name
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_holds_name(e, name) for e in node.elts)
    if isinstance(node, ast.Dict):
        return any(_holds_name(v, name) for v in node.values)
    if isinstance(node, ast.IfExp):
        return _holds_name(node.body, name) or _holds_name(node.orelse, name)
    return False


def _names(node: ast.AST | None) -> frozenset[str]:
    """The name a model is called by: ``model``, or the attribute of ``self.model``."""
    if isinstance(node, ast.Name):
        return frozenset((node.id,))
    return frozenset((node.attr,)) if isinstance(node, ast.Attribute) else frozenset()


def _held_unmoved(ff: FileFlow, res: ScopeResult, func: ast.AST | None) -> bool:
    """Is ``func`` (``self.model``) an attribute of ``self`` of a method of a plain class of
    the file, without bases (a trainer, not an ``nn.Module``: nothing moves it with
    ``self``), that only that class's methods name, each only calling it or one of its
    harmless methods (:data:`_SAFE_USES`: ``self.model.train()``,
    ``self.model.parameters()``), binding it or giving it to a function of the run that keeps
    it in place (:func:`_given_in_place`), and that the files importing this one name only
    where that keeps it in place (:func:`_named_in_place`)?  Then nothing the run does moves
    the model but what the analysis sees.

    >>> src = (
    ...     "class T:\\n"
    ...     "    def __init__(self):\\n        self.m = Net()\\n"
    ...     "    def step(self, x):\\n        return self.m(x)\\n")
    >>> from torchferry.check.flow import analyze
    >>> ff = analyze(ast.parse(src), "t.py")
    >>> res = next(r for r in ff.results() if getattr(r.node, "name", "") == "step")
    >>> call = next(c for c in res.calls.values())
    >>> _held_unmoved(ff, res, call.node.func)
    True
    """
    cls = ff.method_of.get(id(res.node))
    if not isinstance(func, ast.Attribute) or not _is_self(ff, res.node, func.value) or \
            cls is None or cls.is_module or any(
                not (isinstance(b, ast.Name) and b.id == "object") for b in cls.node.bases):
        return False
    attr = func.attr
    for node in ast.walk(ff.tree):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Attribute) and child.attr == attr and \
                    not _plain_held_use(ff, cls, child, node):
                return False
    return ff.project is None or _named_in_place(ff, attr)


def _submodule_of_unmoved(ff: FileFlow, res: ScopeResult, func: ast.AST | None,
                          moved_globals: set[str]) -> bool:
    """Is ``func`` (``model.decoder``) an attribute of a name bound to a module (a submodule
    its class keeps: it moves with the module and nothing else), where that name is moved by
    no function in place, given to no call that may keep or move it, here or around?  Then
    the submodule is where the analysis holds its owner."""
    if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name):
        return False
    owner = func.value.id
    v = res.value(func.value)
    if v is None or v.kinds != {Kind.MODULE} or owner in moved_globals or owner in res.params:
        return False
    return not (_handed_on(ff, res, owner) or _handed_on_around(ff, res, owner) or
                _items_may_move(ff.tree, res.node, owner)) and \
        _only_called(ff.tree, owner, func.attr)


def _only_called(tree: ast.Module, owner: str, attr: str) -> bool:
    """Is every ``<owner>.<attr>`` of the file called or given a harmless method
    (:data:`_SAFE_USES`), never moved, bound nor handed on (``model.decoder.to(device)``)?"""
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            if not (isinstance(child, ast.Attribute) and child.attr == attr and
                    isinstance(child.value, ast.Name) and child.value.id == owner):
                continue
            called = isinstance(node, ast.Call) and node.func is child
            if not called and not (isinstance(node, ast.Attribute) and node.attr in _SAFE_USES):
                return False
    return True


def _held_on_cpu(ff: FileFlow, res: ScopeResult, func: ast.AST | None) -> Origin | None:
    """For ``self.<attr>`` (``func``, :func:`_held_unmoved`) that ``__init__`` keeps as one
    of its parameters (``self.model = model``, :meth:`FileFlow.kept_arguments`), reading it
    nowhere else: where the model that every construction of the class in the run hands it
    was built on the CPU, with known weights (``Trainer(torch.nn.Linear(2, 1))``, or a
    name bound to such a model, never moved, that the constructing scope reads nowhere
    but in the construction and in harmless methods, ``model.parameters()``); else None."""
    cls = ff.method_of.get(id(res.node))
    init = cls.method("__init__") if cls is not None else None
    sites = ff.kept_arguments(cls, func.attr) if cls is not None and \
        isinstance(func, ast.Attribute) else None
    if init is None or not sites or not _read_only_kept(init[1]):
        return None
    found: list[Origin | None] = []
    for other, caller, call_id, given in sites:
        c = caller.calls.get(call_id)
        if c is None or any(isinstance(a, ast.Starred) for a in c.node.args) or \
                any(k.arg is None for k in c.node.keywords):
            return None
        names = {a.id for a in [*c.node.args, *(k.value for k in c.node.keywords)]
                 if isinstance(a, ast.Name) and caller.value(a) == given}
        if any(n in caller.escapes or not _only_read_beside(caller, n, c.node) for n in names):
            return None
        built = _model_on_cpu(other, caller, given)
        if built is None or not isinstance(built.node, ast.Call) or \
                builds_weights(other, built.node) is not True:
            return None
        found.append(_in_file(built, other, ff))
    return found[0] if found and all(f is not None for f in found) else None


def _read_only_kept(init: ast.AST) -> bool:
    """Does ``__init__`` read each of its parameters (but ``self``) at most once, or only
    in harmless methods (:data:`_SAFE_USES`)?  Then a parameter it keeps is not moved in
    place there (``model.to(device)`` as a statement after ``self.model = model``)."""
    args = getattr(init, "args", None)
    params = [a.arg for a in (args.posonlyargs + args.args + args.kwonlyargs)[1:]] if args is not None else []
    return all(_read_only_in(init, p, None) for p in params)


def _only_read_beside(caller: ScopeResult, name: str, call: ast.Call) -> bool:
    """Is every read of ``name`` in the scope of ``caller``, but as an argument of
    ``call``, harmless (:func:`_read_only_in`), or one that keeps the value in place
    (:func:`handoff.read_in_place`: a call of a function of the run whose summary only
    reads it, ``describe(model)``)?"""
    given = frozenset(id(a) for a in [*call.args, *(k.value for k in call.keywords)])
    return _read_only_in(caller.node, name, call) or handoff.read_in_place(caller, name, given)


def _read_only_in(scope: ast.AST, name: str, call: ast.Call | None) -> bool:
    """Is every read of ``name`` in ``scope`` an argument of ``call`` or the receiver of a
    harmless method (``name.parameters()``), and, with ``call`` None, is there at most one
    other read?  (Reads in nested functions count too.)"""
    parents = {id(ch): n for n in ast.walk(scope) for ch in ast.iter_child_nodes(n)}
    given = {id(a) for a in [*call.args, *(k.value for k in call.keywords)]} if call is not None else set()
    others = 0
    for n in ast.walk(scope):
        if not (isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)) or id(n) in given:
            continue
        parent = parents.get(id(n))
        if isinstance(parent, ast.Attribute) and parent.attr in _SAFE_USES:
            continue
        others += 1
        if call is not None or others > 1:
            return False
    return True


def _is_self(ff: FileFlow, fn: ast.AST, node: ast.AST) -> bool:
    """Is ``node`` the name of the first parameter of ``fn``, a method (not static)?"""
    args = getattr(fn, "args", None)
    first = (args.posonlyargs + args.args)[:1] if args is not None else []
    return bool(first) and isinstance(node, ast.Name) and node.id == first[0].arg and \
        id(fn) in ff.method_of and not _static(fn)


def _plain_held_use(ff: FileFlow, cls: ClassInfo, use: ast.Attribute, parent: ast.AST) -> bool:
    """Is ``use`` (``x.<attr>``) ``self.<attr>`` in a method of ``cls``, there called, given a
    harmless method, bound (``self.model = Net()``) or a statement of its own (which does
    nothing)?"""
    method = next((m for m in cls.methods.values() if _within(use, m)), None)
    if method is None or not _is_self(ff, method, use.value):
        return False
    if isinstance(use.ctx, ast.Store) or isinstance(parent, ast.Expr):
        return True
    if isinstance(parent, ast.Call) and parent.func is use:
        return True
    if _given_in_place(ff, method, use, parent):
        return True
    if isinstance(parent, ast.Call) and parent.args == [use] and not parent.keywords and \
            ff.qualname(parent.func) in _COPIES:
        return True  # (``copy.deepcopy(self.actor)``: a new object; the original stays)
    if isinstance(parent, ast.Attribute) and parent.attr in _SAFE_USES:
        return True
    if isinstance(parent, ast.Return) and isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return _named_nowhere(ff, method.name)  # (``def get_network(self): return self.actor``)
    return isinstance(parent, ast.Attribute) and _own_harmless_method(ff, cls, use.attr, parent.attr)


def _named_nowhere(ff: FileFlow, name: str) -> bool:
    """Is the method ``name`` (one that returns the module) named nowhere in its file but
    where it is defined, nor in any file of the run that imports it?  Then no caller of the
    run gets the module from it, to move it."""
    if any(isinstance(n, ast.Attribute) and n.attr == name or isinstance(n, ast.Name) and n.id == name
           or isinstance(n, ast.Constant) and n.value == name for n in ast.walk(ff.tree)):
        return False
    project = ff.project
    if project is None:
        return True
    files = project.importers(ff.path)
    if files is None:
        return False
    named = re.compile(rb"\b" + re.escape(name.encode()) + rb"\b")
    texts = [project.files.get(p) for p in files]
    return not any(t is None or named.search(t) for t in texts)


def _given_in_place(ff: FileFlow, method: ast.AST, use: ast.Attribute, parent: ast.AST) -> bool:
    """Is ``use`` an argument of a call of a function of the run whose summary keeps it in
    place (:func:`handoff.place_effects`: ``hard_target_update(self.policy,
    self.policy_target)`` that only copies the state of one into the other)?"""
    call = parent if isinstance(parent, ast.Call) else None
    if isinstance(parent, ast.keyword):
        call = next((n for n in ast.walk(method) if isinstance(n, ast.Call) and parent in n.keywords), None)
    if call is None or call.func is use:
        return False
    moving = ff.result(method).moving_calls.get(id(call))
    return moving is not None and id(use) not in moving


def _named_in_place(ff: FileFlow, attr: str) -> bool:
    """Does every file of the run that imports this one name ``.<attr>`` (``agent.policy``)
    only where that keeps the module in place (:func:`handoff.stays_in_place`:
    ``agent.policy.load_state_dict(sd)``, ``torch.save(agent.policy.state_dict(), f)``)?
    False when those files cannot all be known."""
    project = ff.project
    files = project.importers(ff.path) if project is not None else None
    if project is None or files is None:
        return False
    named = re.compile(rb"\.\s*" + re.escape(attr.encode()) + rb"\b")
    texts = [project.files.get(p) for p in files]
    if not any(t is None or named.search(t) for t in texts):
        return True
    flows = project.importer_flows(ff)
    return flows is not None and all(_uses_in_place(other, attr) for other in flows)


def _uses_in_place(other: FileFlow, attr: str) -> bool:
    """Is every ``<x>.<attr>`` of the file of ``other`` read where it keeps its module in
    place, in the own code of a scope the analysis interpreted?"""
    left = sum(1 for n in ast.walk(other.tree) if isinstance(n, ast.Attribute) and n.attr == attr)
    for r in other.results():
        parents = handoff.parents_of(r.node)
        for n in own_nodes(r.node):
            if isinstance(n, ast.Attribute) and n.attr == attr:
                if not isinstance(n.ctx, ast.Load) or not handoff.stays_in_place(r, parents, n):
                    return False
                left -= 1
    return left == 0


#: the standard library's copies: a new object, the original left where it is
_COPIES = frozenset({"copy.deepcopy", "copy.copy"})


def _own_harmless_method(ff: FileFlow, cls: ClassInfo, attr: str, name: str) -> bool:
    """Is ``self.<attr>.<name>`` of ``cls`` a method of the run's module class that every
    binding of ``self.<attr>`` in ``cls`` constructs (``self.critic = Critic(...)``, or
    copies from an attribute so bound: ``self.critic_target = copy.deepcopy(self.critic)``),
    one that reads its own ``self`` only as ``self.<x>`` and never moves or hands on anything
    of it (``def Q1(self, s, a): return self.l3(torch.cat([s, a], 1))``)?"""
    built = _bound_classes(ff, cls, attr, 0)
    classes = {id(c): c for c in built if c is not None}
    if not built or None in built or len(classes) != 1:
        return False
    held = next(iter(classes.values()))
    return held.is_module and _self_only_read(held, name, set())


def _bound_classes(ff: FileFlow, cls: ClassInfo, attr: str, depth: int) -> list[ClassInfo | None]:
    """The class each binding of ``self.<attr>`` in ``cls`` constructs (None: not known), a
    copy (``copy.deepcopy(self.encoder)``) standing for the bindings of what it copies."""
    bound = [n.value for n in ast.walk(cls.node) if isinstance(n, ast.Assign) and any(
        isinstance(t, ast.Attribute) and t.attr == attr for t in n.targets)]
    out: list[ClassInfo | None] = []
    for b in bound:
        copied = b.args[0] if isinstance(b, ast.Call) and len(b.args) == 1 and not b.keywords \
            and ff.qualname(b.func) in _COPIES else None
        method = _method_holding(cls, b)
        if isinstance(copied, ast.Attribute) and method is not None and _is_self(ff, method, copied.value) \
                and copied.attr != attr and depth < 3:
            out.extend(_bound_classes(ff, cls, copied.attr, depth + 1))
        else:
            out.append(ff.class_called(b) if isinstance(b, ast.Call) else None)
    return out


def _method_holding(cls: ClassInfo, node: ast.AST) -> ast.AST | None:
    """The method of ``cls`` whose body holds ``node``."""
    return next((m for m in cls.methods.values() if _within(node, m)), None)


def _self_only_read(cls: ClassInfo, name: str, seen: set[str]) -> bool:
    """Does the method ``name`` of ``cls`` (and each method of ``cls`` it reaches through
    ``self.<method>``) read its first parameter only as ``self.<x>``, never name a mover
    (``self.l1.cuda()``, ``self.to(d)``) but of a tensor a factory of torch makes there
    (:func:`_fresh_tensor`), nor bind or hand on ``self`` as a whole?"""
    if name in seen:
        return True  # (being checked, further up)
    found = cls.method(name)
    if found is None or len(seen) >= 8:
        return False
    seen.add(name)
    fn = found[1]
    args = fn.args.posonlyargs + fn.args.args
    if not args:
        return False
    me = args[0].arg
    parents = {id(ch): n for n in ast.walk(fn) for ch in ast.iter_child_nodes(n)}
    for n in ast.walk(fn):
        if isinstance(n, ast.Attribute) and n.attr in _MOVERS and not _fresh_tensor(cls.ff, n.value):
            return False
        if not (isinstance(n, ast.Name) and n.id == me):
            continue
        parent = parents.get(id(n))
        if not isinstance(parent, ast.Attribute) or not isinstance(n.ctx, ast.Load):
            return False
        if cls.method(parent.attr) is not None and not _self_only_read(cls, parent.attr, seen):
            return False
    return True


def _fresh_tensor(ff: FileFlow, node: ast.expr) -> bool:
    """Is ``node`` a tensor a factory of torch makes right there (``torch.randn(n, d)``,
    ``torch.zeros_like(x)``): a new object, so that moving it (``torch.randn(n,
    d).to(self.device)``) moves nothing the module holds?"""
    if not isinstance(node, ast.Call):
        return False
    head, _, last = (ff.qualname(node.func) or "").rpartition(".")
    return head == "torch" and last in _FRESH_FACTORIES


_FRESH_FACTORIES = SHAPE_FACTORIES | LIKE_FACTORIES | DATA_FACTORIES


#: iterating a collection through these gives its items
_ITERATE = frozenset({"enumerate", "reversed", "zip", "iter", "list", "tuple"})
_MOVERS = ACCEL_MOVE_NAMES | {"type", "apply", "to_empty"}


def _items_may_move(tree: ast.Module, scope: ast.AST, name: str) -> bool:
    """For a model taken from a collection by a loop of ``scope`` (``for layer in
    self.layers``): may anything in the file move the collection's items in place?  Every
    use of the collection's attribute (or name) must be a loop over it, whose items are
    only called, given to nothing and moved by nothing, its assignment, or ``len``; a model
    not bound by a loop is not concerned."""
    loops = [n for n in ast.walk(scope) if isinstance(n, (ast.For, ast.AsyncFor))
             and any(isinstance(t, ast.Name) and t.id == name for t in ast.walk(n.target))]
    if not loops:
        return False
    attrs, names = set(), set()
    for loop in loops:
        it = loop.iter
        while isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in _ITERATE and it.args:
            it = it.args[0]
        if isinstance(it, ast.Attribute):
            attrs.add(it.attr)  # (``self.layers``: wherever the file reads a ``.layers``)
        elif isinstance(it, ast.Name):
            names.add(it.id)  # (a local list: in this scope)
        else:
            return True
    uses: list[ast.Attribute | ast.Name] = [
        n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr in attrs]
    uses += [n for n in ast.walk(scope) if isinstance(n, ast.Name) and n.id in names]
    parents = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    return any(isinstance(n.ctx, ast.Load) and not _plain_use(parents, n) for n in uses)


def _plain_use(parents: dict[int, ast.AST], n: ast.AST) -> bool:
    """Is ``n`` (a collection of modules) iterated by a loop that only calls its items,
    added to in its own assignment (``self.layers = self.layers + [...]``), or measured?"""
    up = parents.get(id(n))
    while isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id in _ITERATE:
        up = parents.get(id(up))
    if isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id == "len":
        return True
    if isinstance(up, ast.BinOp) and isinstance(parents.get(id(up)), ast.Assign):
        return True
    if not isinstance(up, (ast.For, ast.AsyncFor)):
        return False
    target = up.target
    if isinstance(up.iter, ast.Call) and isinstance(up.iter.func, ast.Name) and up.iter.func.id == "enumerate" \
            and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        target = target.elts[1]  # (not the index)
    names = {t.id for t in ast.walk(target) if isinstance(t, ast.Name)}
    for x in ast.walk(up):
        if isinstance(x, ast.Call):
            f = x.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in names \
                    and f.attr in _MOVERS:
                return False
            if any(isinstance(a, ast.Name) and a.id in names for a in [*x.args, *(k.value for k in x.keywords)]):
                return False
    return True


def _param_item(res: ScopeResult, a: ast.expr) -> int | None:
    """``k`` for ``a`` = ``seq[k]`` (a constant index) of a parameter ``seq`` of ``res``: the
    analysis holds such an item where the parameter lives, and the callers say what it is."""
    if isinstance(a, ast.Subscript) and isinstance(a.value, ast.Name) and a.value.id in res.params \
            and isinstance(a.slice, ast.Constant) and type(a.slice.value) is int and a.slice.value >= 0:
        return a.slice.value
    return None


def _input_moved(ff: FileFlow, res: ScopeResult, v: Value, depth: int = 0,
                 item: int | None = None, tensor: bool = False) -> Origin | None:
    """The move that put ``v``, a tensor (or a batch), on a device the code chose: its own,
    or, for a value that lives where a parameter does (``h = overlay(x)`` of a parameter
    ``x``), the one of what every call of this file passes for it.  With ``item``, of the
    ``item``-th element of the sequence ``v`` (``model(*inputs)``, ``model(inputs[0])``): of a
    tuple written out (here or by every caller), else of the whole when it is a tensor or a
    batch, not of a sequence of unknown items.  With ``tensor`` (a use says ``v`` is a
    tensor: a layer of ``torch.nn`` is given it, or it is a parameter the function uses as
    one, ``x.view(-1)``), a value moved there whose kind the analysis does not know counts
    too (``s = s.to(device)`` of a parameter ``s``)."""
    if item is not None and v.elts is not None:
        return _input_moved(ff, res, v.elts[item], depth) if item < len(v.elts) else None
    handed = _unpacked_moved(ff, res, v, depth) if item is None and depth < 3 else None
    if handed is not None:
        return handed
    if v.places and len(v.places) == 1 and next(iter(v.places)).where is Where.PARAM and depth < 3:
        if item is None and v.kinds is not None and not v.kinds <= {Kind.TENSOR, Kind.BATCH}:
            return None
        k = int(next(iter(v.places)).ref)
        used = item is None and (tensor or res.param_uses.get(k) is Kind.TENSOR)
        return _from_callers(ff, res, v, depth, lambda o, c, g, d: _input_moved(o, c, g, d, item, used))
    # (an item of a moved tensor or batch is where the whole is)
    moved = ev.latest(v, Op.MOVED, Op.MADE)  # (to the device the code chose: maybe the CPU)
    if moved is not None and moved.op is Op.MADE:
        return moved if _made_on_chosen_device(ff, v, moved) else None
    if moved is None or moved.to is None or ACCEL not in moved.to or v.places != moved.to:
        return None
    if v.kinds is None and (not tensor or item is not None) or \
            v.kinds is not None and not v.kinds <= {Kind.TENSOR, Kind.BATCH}:
        return None
    return moved


def _unpacked_moved(ff: FileFlow, res: ScopeResult, v: Value, depth: int) -> Origin | None:
    """The move that put ``v``, an item unpacked by names from a tuple parameter of ``res``
    (:func:`~torchferry.check.flow.unpacked.unpacked_item`), on a device the code chose: that
    of the item at its position of every tuple the run's calls pass
    (:func:`~torchferry.check.flow.unpacked.passed_tuples`; :func:`_input_moved` of each, in
    its caller), cited in its file; None when one is not so moved."""
    u = unpacked_item(res, v)
    passed = passed_tuples(ff, res, u.param, u.names) if u is not None else None
    if u is None or not passed:
        return None
    moves = [_in_file(_input_moved(t.ff, t.scope, t.value.elts[u.position], depth + 1), t.ff, ff)
             for t in passed if t.value.elts is not None]
    return moves[0] if len(moves) == len(passed) and all(m is not None for m in moves) else None


def _takes_tensors(model: Value) -> bool:
    """Was ``model`` built, on every path, as a layer of ``torch.nn`` with weights that is
    given tensors only (``nn.Conv1d(1, 1, 3)``; not a container, whose first layer decides,
    nor a recurrent layer, which takes packed sequences too)?"""
    made = [o for o in model.origins if o.op is Op.MADE]
    names = [o.text.split("(", 1)[0] for o in made]
    return bool(made) and all(
        n.startswith("torch.nn.") and (last := n.rsplit(".", 1)[-1]) in PARAM_LAYERS and
        not last.startswith(("RNN", "LSTM", "GRU")) for n in names)


def _forward_takes_tensors(ff: FileFlow, res: ScopeResult, model: Value) -> bool:
    """Is ``model``, on every make of it in the run, a module class of the run whose
    ``forward`` hands its input first to a layer of ``torch.nn`` that takes tensors only
    (:func:`forward_takes_a_tensor`: ``x = self.embed(x)``)?"""
    makes = _module_makes(ff, res, model, 0)
    return bool(makes) and all(forward_takes_a_tensor(info) or hands_to_a_tensor_layer(made, info, call)
                               for made, info, call in makes or ())


def _made_on_chosen_device(ff: FileFlow, v: Value, made: Origin) -> bool:
    """Was the tensor ``v`` made, where ``made`` says, by a call of this file given
    ``device=`` a device the code chose that may be an accelerator (``torch.randn(n, nz,
    device=device)`` of ``device = torch.device("cuda" if ... else "cpu")``, or
    ``device="cuda"``; not a device known only by its name), and is it still there (no
    symbolic place: not a parameter's)?  A tensor made by another file's function of the
    run (``state = env.reset()`` of ``Env.reset`` returning ``torch.zeros(n,
    device=self.device)``) is judged by that file's call, or, where its ``device=`` is of
    no place there (``self.device`` kept from a constructor's argument), by where the
    analysis of this file's call puts the tensor."""
    if made.path is not None and made.path != ff.path:
        home = ff.project.file_flow(made.path) if ff.project is not None else None
        if home is None or home is ff:
            return False
        return _made_on_chosen_device(home, v, made._replace(path=None)) or \
            isinstance(made.node, ast.Call) and kwarg(made.node, "device") is not None and \
            v.basis >= Basis.INFERRED and _still_on_accel(v)
    node = made.node
    given = kwarg(node, "device") if isinstance(node, ast.Call) and made.path is None else None
    res = ff.scope_of(given) if given is not None else None
    dv = res.value(given) if res is not None and given is not None else None
    if given is None and isinstance(node, ast.Call) and made.path is None:
        if not _typed_on_chosen_device(ff, node):
            return False
    elif dv is None or not dv.is_(Kind.DEVICE) or dv.basis < Basis.INFERRED and not (
            isinstance(given, ast.Constant) and isinstance(given.value, str)):
        return False
    return _still_on_accel(v)


def _still_on_accel(v: Value) -> bool:
    """Is ``v`` a tensor that may be on an accelerator, at no symbolic place?"""
    return v.kinds == {Kind.TENSOR} and bool(v.places) and ACCEL in (v.places or ()) \
        and not any(p.symbolic for p in v.places or ())


def _typed_on_chosen_device(ff: FileFlow, node: ast.Call) -> bool:
    """Is ``node`` a call of a name bound to a legacy tensor type that may be a CUDA one
    (``FloatTensor(board)`` of ``FloatTensor = torch.cuda.FloatTensor if use_cuda else
    torch.FloatTensor``): a tensor the code makes on the device it chose?"""
    res = ff.scope_of(node.func)
    typed = res.value(node.func) if res is not None else None
    return typed is not None and typed.is_(Kind.OTHER) and ACCEL in (typed.places or ()) \
        and all(o.op is Op.MADE and o.text.startswith("torch.") for o in typed.origins)


def _locals(res: ScopeResult) -> set[str]:
    """The names a function's body binds (not the module's: a global there is the module's)."""
    if isinstance(res.node, ast.Module):
        return set()
    return {n.id for n in ast.walk(res.node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _model_on_cpu(ff: FileFlow, res: ScopeResult, model: Value, depth: int = 0) -> Origin | None:
    """Where ``model`` was built on the CPU, with weights, and never moved (in this scope,
    or in every call of this file that passes it, by a name no unseen call was given)."""
    if model.places == {CPU}:
        made = ev.first(model, Op.MADE)
        if not model.is_(Kind.MODULE) or made is None or any(
                o.op in (Op.MOVED, Op.LOADED, Op.RETURNED) for o in model.origins):
            return None
        if made.path is not None:
            return _returned_unmoved(ff, model, made)
        if isinstance(made.node, ast.Call) and holds_a_moved_module(ff, made.node):
            return None  # (built around a moved module: its weights are where that one is)
        return made if _built_with_weights(ff, model, made) else None
    if not model.places or len(model.places) != 1 or depth >= 3:
        return None
    p = next(iter(model.places))
    if p.where is not Where.PARAM:
        return None
    sites = _callers(ff, res, int(p.ref))
    if not sites:
        return None
    found: list[Origin | None] = []
    for other, caller, call_id, given in sites:
        c = caller.calls.get(call_id)
        if c is None:
            return None
        receiver = [c.node.func.value] if isinstance(c.node.func, ast.Attribute) else []
        names = [x for x in [*c.node.args, *(k.value for k in c.node.keywords), *receiver]
                 if isinstance(x, ast.Name) and caller.value(x) == given]
        if any(_handed_on(other, caller, n.id) or _handed_on_around(other, caller, n.id)
               or _aliased(caller, n.id) for n in names):
            return None
        found.append(_in_file(_model_on_cpu(other, caller, given, depth + 1), other, ff))
    return found[0] if all(f is not None for f in found) else None


def _returned_unmoved(ff: FileFlow, model: Value, made: Origin) -> Origin | None:
    """``made``, where a function of another file of the run built ``model`` with weights
    and returned it unmoved (``d, g = nets.build(device)`` of ``d = Net().train()`` ...
    ``return d, g``), cited in that file; None when the construction is not in such a
    function, or the function may have moved it there (see :func:`_plainly_returned`)."""
    home = ff.project.file_flow(made.path) if ff.project is not None and made.path else None
    node = made.node
    if home is None or home is ff or not isinstance(node, ast.Call):
        return None
    where = home.scope_of(node)
    fn = where.node if where is not None else None
    if where is None or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            or home.defs.get(fn.name) is not fn or not _plainly_returned(home, where, node):
        return None
    if holds_a_moved_module(home, node):
        return None
    local = made._replace(path=None)
    return made if _built_with_weights(home, model._replace(origins=(local,)), local) else None


def _plainly_returned(home: FileFlow, where: ScopeResult, node: ast.Call) -> bool:
    """Does the function ``where`` return the module ``node`` builds as it was built: in
    its ``return`` (alone or an item of a tuple written there), directly or under one name
    bound once by a plain assignment, ``node`` the innermost receiver of a chain of calls
    of module methods that return the module (``Net().train()``), the name read only by
    its ``return`` statements, given to nothing, aliased by nothing, no part of it moved?"""
    fn = where.node
    parents = {id(c): p for p in ast.walk(fn) for c in ast.iter_child_nodes(p)}
    top: ast.AST = node
    while True:
        up = parents.get(id(top))
        if isinstance(up, ast.Attribute) and up.value is top and up.attr in _SELF_RETURNING:
            call = parents.get(id(up))
            if not isinstance(call, ast.Call) or call.func is not up or call.args or call.keywords:
                return False
            top = call
            continue
        break
    up = parents.get(id(top))
    if isinstance(up, ast.Tuple) and isinstance(parents.get(id(up)), ast.Return):
        return True
    if isinstance(up, ast.Return):
        return True
    if not isinstance(up, ast.Assign) or len(up.targets) != 1 or not isinstance(up.targets[0], ast.Name):
        return False
    name = up.targets[0].id
    binds = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)]
    loads = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    if len(binds) != 1 or not loads or any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(fn)):
        return False
    for n in loads:
        up = parents.get(id(n))
        if isinstance(up, ast.Tuple):
            up = parents.get(id(up))
        if not isinstance(up, ast.Return):
            return False
    return not (_handed_on(home, where, name) or _aliased(where, name) or _parts_moved(fn, name))


#: module methods that return the module itself, in place, and move nothing
_SELF_RETURNING = frozenset(("train", "eval"))


def _callers(ff: FileFlow, res: ScopeResult, k: int) -> list[tuple[FileFlow, ScopeResult, int, Value]] | None:
    """What each call of the function ``res`` interprets passes for its parameter ``k``:
    (the caller's file, its scope, the call's id, the argument), for the calls of this
    file and, when the run knows them all (:meth:`Project.foreign_calls`), of the files
    that import it; None when a call leaves ``k`` unbound or spreads ``*args``."""
    sites = [(ff, caller, call_id, bound)
             for call_id, (caller, bound) in ff.call_sites.get(id(res.node), {}).items()]
    if ff.project is not None:
        method = ff.is_method(res.node)
        foreign = ff.project.foreign_method_calls(ff, res.node) if method \
            else ff.project.foreign_calls(ff, res.node)
        if foreign is not None:
            sites.extend(foreign)
    out = []
    for other, caller, call_id, bound in sites:
        v = bound.get(str(k))
        if v is None:
            return None
        out.append((other, caller, call_id, v))
    return out


def _from_callers(ff: FileFlow, res: ScopeResult, v: Value, depth: int,
                  answer: Callable[[FileFlow, ScopeResult, Value, int], Origin | None]) -> Origin | None:
    """For ``v`` that lives where one parameter of ``res`` does, the answer every call of
    the run agrees on: ``answer(file, caller, argument, depth + 1)`` of each caller's
    argument, cited in its file (:func:`_in_file`); None past three calls, when ``v`` is not
    a parameter's, a call is unknown (:func:`_callers`), there is none, or one answers None."""
    if not v.places or len(v.places) != 1 or depth >= 3:
        return None
    p = next(iter(v.places))
    if p.where is not Where.PARAM:
        return None
    found = [_in_file(answer(other, caller, given, depth + 1), other, ff)
             for other, caller, _, given in _callers(ff, res, int(p.ref)) or ()]
    return found[0] if found and all(f is not None for f in found) else None


def _in_file(origin: Origin | None, other: FileFlow, ff: FileFlow) -> Origin | None:
    """An origin ``other``'s analysis found, as ``ff``'s findings cite it (with its file)."""
    if origin is None or other is ff or origin.path is not None:
        return origin
    return origin._replace(path=other.path)


def _handed_on(ff: FileFlow, res: ScopeResult, name: str) -> bool:
    """Is ``name`` given, in this scope, to a call other than a function of this file or a
    builtin?  A wrapper or container moved later moves the module in it
    (``nn.DataParallel(model).cuda()``), and so may a class that keeps it
    (``Trainer(model)``) or anything the analysis cannot see into."""
    if name in res.escapes and not _escape_explained(ff, res, name):
        return True
    for c in res.calls.values():
        given = [*c.node.args, *(k.value for k in c.node.keywords)]
        if not any(isinstance(a, ast.Name) and a.id == name or
                   isinstance(a, ast.Starred) and isinstance(a.value, ast.Name) and a.value.id == name
                   for a in given):
            continue
        func = c.node.func
        if c.callee is Callee.BUILTIN or rewrapped(res, c, name) or _kept_there(res, c, name):
            continue  # (``model = nn.DataParallel(model)``: the name's own moves move it)
        if c.callee is Callee.FUNCTION and isinstance(func, ast.Name) and \
                isinstance(ff.defs.get(func.id), (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if _called_instance_keeps(ff, c, name):
            continue
        return True
    return False


def _escape_explained(ff: FileFlow, res: ScopeResult, name: str) -> bool:
    """Is every call of the scope that ``name`` escaped through (one the analysis could
    not follow) a call of an instance of a plain class of the run whose ``__call__`` keeps
    it in place (:func:`_called_instance_keeps`), and every call of a function of the run
    given it one that hands it off nowhere, or moves it nowhere and returns a value the
    analysis knows (one of unknown result may return the module itself, to be moved
    under another name)?"""
    for c in res.calls.values():
        given = [a for a in [*c.node.args, *(k.value for k in c.node.keywords)]
                 if isinstance(a, ast.Name) and a.id == name
                 or isinstance(a, ast.Starred) and isinstance(a.value, ast.Name) and a.value.id == name]
        if not given or c.callee in (Callee.BUILTIN, Callee.TORCH, Callee.NUMPY, Callee.MODULE):
            continue
        handed = res.handed_calls.get(id(c.node))
        if handed is not None and not any(id(a) in handed for a in given):
            continue
        moving, out = res.moving_calls.get(id(c.node)), res.value(c.node)
        if moving is not None and not any(id(a) in moving for a in given) and out is not None \
                and (out.kinds is not None or out.places is not None):
            continue  # (writes it, puts it nowhere, and returns something known)
        if c.callee is Callee.UNRESOLVED and _called_instance_keeps(ff, c, name):
            continue
        return False
    return True


def _called_instance_keeps(ff: FileFlow, c: CallEvent, name: str) -> bool:
    """Is ``c`` a call of an instance of a plain class of the run, built in this file
    (``log = Log(...)``, then ``log(model, loss)``), whose ``__call__`` (undecorated, its
    parameters bound one by one) puts none of the arguments ``name`` is given as anywhere
    (:func:`handoff.place_effects`: read, or handed only to methods of the run that keep it
    in place)?"""
    made = c.func.origins[0] if c.callee is Callee.UNRESOLVED and len(c.func.origins) == 1 else None
    if made is None or made.op is not Op.MADE or made.path is not None or not isinstance(made.node, ast.Call):
        return False
    info = ff.class_called(made.node)
    found = info.method("__call__") if info is not None and not info.is_module else None
    if found is None or found[1].decorator_list or not isinstance(found[1], ast.FunctionDef) \
            or any(isinstance(a, ast.Starred) for a in c.node.args) \
            or any(k.arg is None for k in c.node.keywords):
        return False
    owner, fn = found
    summary = owner.ff.summary(fn, ff)
    params = param_names(fn)
    if summary is None or fn.args.vararg or fn.args.kwarg:
        return False
    effects = handoff.place_effects(summary)
    given = [k + 1 for k, a in enumerate(c.node.args) if isinstance(a, ast.Name) and a.id == name]
    given += [params.index(k.arg) for k in c.node.keywords
              if isinstance(k.value, ast.Name) and k.value.id == name and k.arg in params]
    named = sum(isinstance(a, ast.Name) and a.id == name for a in [*c.node.args, *(k.value for k in c.node.keywords)])
    return len(given) == named and all(k < len(effects) and effects[k] is Effect.KEEPS_PLACE for k in given)


def _kept_there(res: ScopeResult, c: CallEvent, name: str) -> bool:
    """Does the call ``c`` keep ``name`` in place: a function of the library that keeps
    its arguments (:func:`keeps_arguments`), or one of the run whose summary may move
    none of the expressions ``name`` is given as (:attr:`ScopeResult.moving_calls`: it
    may write their values, ``m.apply(fn)`` of an ``fn`` that sets a number on each
    submodule, but puts them nowhere else)?"""
    if c.callee in (Callee.TORCH, Callee.NUMPY):
        return c.qualname is not None and keeps_arguments(c.qualname)
    handed = res.moving_calls.get(id(c.node))
    return handed is not None and not any(
        isinstance(a, ast.Name) and a.id == name and id(a) in handed
        for a in [*c.node.args, *(k.value for k in c.node.keywords)])


def _handed_on_around(ff: FileFlow, res: ScopeResult, name: str) -> bool:
    """For ``name`` free in the function ``res`` (a global, or a name of an enclosing
    function): is it given to a class that may keep and move it (``Trainer(model)``,
    ``nn.DataParallel(model)``: a class of the run or a name in CapWords) by a scope around
    ``res``?  A model the script gives a ``Trainer`` that moves it is the one a callback of
    the script later calls; one it only saves (``torch.save(model, f)``) is not moved."""
    fn = res.node
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or name in res.params \
            or name in _locals(res):
        return False
    end = fn.end_lineno or fn.lineno
    for r in ff.results():
        outer = r.node
        if outer is fn or not isinstance(outer, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(outer, ast.Module) or outer.lineno <= fn.lineno and end <= (outer.end_lineno or 0):
            if any(_builds_a_class(ff, c.node) and _given(c.node, name) and not rewrapped(r, c, name)
                   for c in r.calls.values()):
                return True
    return False


def _given(call: ast.Call, name: str) -> bool:
    return any(isinstance(a, ast.Name) and a.id == name
               for a in [*call.args, *(k.value for k in call.keywords)])


def _builds_a_class(ff: FileFlow, call: ast.Call) -> bool:
    """Does ``call`` construct an instance: of a class of the file, or of a class named in
    CapWords (``Trainer(...)``, ``nn.DataParallel(...)``)?"""
    func = call.func
    last = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return isinstance(ff.defs.get(last), ast.ClassDef) or OUTSIDE_CLASS.fullmatch(last) is not None


def _metric(model: Value) -> bool:
    """Was ``model`` built as a metric of torchmetrics whose state is made of tensors
    (:func:`~torchferry.check.flow.vocab.tensor_state_metric`)?"""
    made = ev.first(model, Op.MADE)
    return made is not None and vocab.tensor_state_metric(made.text.split("(", 1)[0])


def _built_with_weights(ff: FileFlow, model: Value, made: Origin) -> bool:
    """A ``torch.nn`` layer with weights, a torchvision model, or a class of the run that
    holds parameters."""
    name = made.text.split("(", 1)[0]
    among = ff.built_among.get(id(made.node)) if made.path is None else None
    if among is not None and isinstance(made.node, ast.Call):
        # (one class of a table on each path: each entry is a model the code offers)
        answers = [class_weights(ff, info, made.node) for info in among]
        return None not in answers and True in answers
    if made.path is None and isinstance(made.node, ast.Call):
        weights = builds_weights(ff, made.node)
        if weights is not None:
            return weights
    if name.startswith("torch.nn."):
        layer = name.rsplit(".", 1)[-1]
        return layer in PARAM_LAYERS or layer in vocab.CONTAINERS
    if name.startswith(vocab.MODEL_ZOOS) or vocab.tensor_state_metric(name) or holds_tensors(name) \
            or hf_pretrained_model(name):
        return True
    info = ff.class_of(model)
    return info is not None and info.is_module and holds_parameters(info)


def _left_finding(ctx: Context, c: CallEvent, a: ast.expr, moved: Origin, built: Origin,
                  through: bool = False) -> Finding:
    """The finding of a model left on the CPU (``through``: the input lives where a
    parameter does, which every caller passes moved)."""
    name, x = ctx.text(c.node.func), ctx.text(a)
    shown = f"the first item of `{ctx.text(a.value)}`" if isinstance(a, ast.Starred) else f"`{x}`"
    call = name
    if c.callee is Callee.METHOD and isinstance(c.node.func, ast.Attribute):
        name = ctx.text(c.node.func.value)  # the module of ``layer.train(h)``
    placed = "made on the device" if moved.op is Op.MADE else "moved to the device"
    how = f"made of what every call of this function passes, {placed} at {ev.where(moved)}" \
        if through else f"{placed} at {ev.where(moved)}"
    metric = c.callee is Callee.MODULE and _metric(c.func)
    error = "\"Expected all tensors to be on the same device\" (its state is on the CPU)" if metric \
        else "\"Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same\""
    what = "metric" if metric else "model"
    f = ctx.finding(
        CODE, c.node,
        f"{shown} is {placed} but `{name}` never is{' moved' if moved.op is Op.MADE else ''}: on a GPU machine "
        f"this call fails with {error}; move the {what} once (`{name}.to(device)`)")
    steps = (ev.step(ctx, built, f"the {what} is built on the CPU at {ev.where(built)} and never moved"),
             ev.step(ctx, moved, f"{shown} is {how}"),
             ev.at(ctx, c.node, f"they meet in `{call}(...)` here"))
    return replace(f, evidence=steps)


def _feeding_method(ff: FileFlow, c: CallEvent) -> Value | None:
    """The module whose method ``c`` calls (``model.decode(z)``), when the method, of a
    module class of the run, hands one of its parameters to the module's weights
    (:func:`weighed_params`: to one of its own layers with weights, ``self.fc3(z)``, to
    itself, ``self(x)``, or through its other methods, ``self.forward(x)``)."""
    return c.receiver if _weighed_inputs(ff, c) else None


def _weighed_inputs(ff: FileFlow, c: CallEvent) -> list[tuple[ast.expr, Value]]:
    """The input of ``c``, a call of a method of a module class of the run: the argument
    bound to the first of the method's parameters that it hands to the module's weights
    (as ``model(x)``'s first argument is; a later one may be wanted elsewhere), or none."""
    recv = c.receiver
    if c.callee is not Callee.METHOD or recv is None or not recv.is_(Kind.MODULE) or not c.qualname:
        return []
    info = ff.class_of(recv)
    found = info.method(c.qualname) if info is not None and info.is_module else None
    if info is None or found is None:
        return []
    weighed = weighed_params(ff, info, c.qualname)
    bound = bound_arguments(c.node, param_names(found[1]))
    first = min((k for k in weighed if k in bound), default=None)
    nodes = {id(bound[first])} if first is not None else set()
    pairs = [*zip(c.node.args, c.args, strict=False),
             *((k.value, v) for k, (_, v) in zip(c.node.keywords, c.keywords, strict=False))]
    return [(a, v) for a, v in pairs if id(a) in nodes]


def _generating(ff: FileFlow, c: CallEvent) -> Value | None:
    """The module of ``model.generate(...)`` (a module, or a value of unknown kind: what
    ``from_pretrained`` returns) when no class of the run defines that ``generate``
    (transformers' ``GenerationMixin.generate`` runs the model's ``forward`` on the prompt
    it is given, on the model's device, and does not move it)."""
    recv = c.receiver
    if c.callee is not Callee.METHOD or recv is None or c.qualname != "generate" \
            or not (recv.kinds is None or recv.is_(Kind.MODULE)):
        return None
    info = ff.class_of(recv)
    return recv if info is None or info.method("generate") is None else None


def _unseen_generate(c: CallEvent) -> bool:
    """``model.generate(...)`` of a receiver of unknown kind and place that the analysis
    left unresolved (a global built outside the checked files, joined over an arm that
    moves it)."""
    return c.callee is Callee.UNRESOLVED and c.qualname == "generate" and c.receiver is not None \
        and c.receiver.kinds is None and c.receiver.places is None


def _generated_from(c: CallEvent) -> tuple[ast.expr, Value] | None:
    """The prompt of ``model.generate(...)``: its first positional argument, else its
    ``input_ids=`` or ``inputs=``, else the one mapping of ``model.generate(**inputs)``."""
    if c.node.args:
        a = c.node.args[0]
        return None if isinstance(a, ast.Starred) else (a, c.args[0])
    pairs = list(zip(c.node.keywords, c.keywords, strict=False))
    for k, (name, v) in pairs:
        if name in ("input_ids", "inputs"):
            return k.value, v
    unpacked = [(k.value, v) for k, (name, v) in pairs if name == "**"]
    return unpacked[0] if len(unpacked) == 1 else None


def _input(c: CallEvent) -> tuple[ast.expr, Value] | None:
    """The model's input: its first positional argument, else its first keyword one, else
    the mapping of ``model(**inputs)``."""
    if c.node.args:
        a = c.node.args[0]
        return None if isinstance(a, ast.Starred) else (a, c.args[0])
    for k, (name, v) in zip(c.node.keywords, c.keywords, strict=False):
        if name != "**":
            return k.value, v
    unpacked = [(k.value, v) for k, (_, v) in zip(c.node.keywords, c.keywords, strict=False)]
    return unpacked[0] if len(unpacked) == 1 else None


def _unpacked_made(ff: FileFlow, res: ScopeResult, v: Value) -> tuple[Origin, Origin] | None:
    """Where the run made ``v`` on the CPU, and the call that handed it in, when ``v`` is an
    item that an unpacking of ``res`` without a starred name takes, as it came in, from a
    parameter (``states, actions = experiences`` in ``learn(self, experiences)``,
    :func:`~torchferry.check.flow.unpacked.unpacked_item`) and every call of the run passes
    a tuple of as many items whose item there is a tensor made on the CPU and never moved
    (:func:`_cpu_made`; :func:`~torchferry.check.flow.unpacked.passed_tuples`)."""
    item = unpacked_item(res, v)
    passed = passed_tuples(ff, res, item.param, item.names) if item is not None else None
    if item is None or not passed:
        return None
    made = [m for t in passed if t.value.elts is not None and (m := _cpu_made(t.value.elts[item.position]))]
    if len(made) != len(passed):
        return None
    first = passed[0]
    handed = Origin(Op.PARAM, first.call.lineno, first.call.col_offset, f"{ast.unparse(first.call.func)}(...)",
                    None if first.ff is ff else first.ff.path, node=first.call)
    return made[0], handed


def _made_for_another_file(ctx: Context) -> Iterator[Finding]:
    """Tensors this file makes on the CPU, in a tuple that a function of the run returns
    (``ReplayBuffer.sample``), that a file importing this one hands whole to a function
    which unpacks it and gives the item to a model on the device (:func:`_unpacked_made`):
    reported at the make, here, where the fix goes; the evidence names the other file's
    model, call and meeting.  The files that import this one are read only when the run
    knows them all (:meth:`~torchferry.check.flow.project.Project.importer_flows`)."""
    ff: FileFlow = ctx.flow
    others = ff.project.importer_flows(ff) \
        if ff.project is not None and returns_cpu_items(ff) else None
    for other in others or ():
        for res in list(other.results()):
            if not res.param_unpacked:
                continue
            for c in res.calls.values():
                found = _handed_made_here(ff, other, res, c)
                if found is not None:
                    yield _made_for_finding(ctx, other, c, *found)


def _handed_made_here(ff: FileFlow, other: FileFlow, res: ScopeResult, c: CallEvent
                      ) -> tuple[ast.Call, Value, Origin, Origin, Origin] | None:
    """For ``c``, a module call of ``other``'s scope ``res``: the call of ``ff`` that made
    its input, an item of a tuple parameter, on the CPU (:func:`_unpacked_made`), the
    input, where it was made, the call that handed the tuple in and the model's move; None
    when not so, or when the model may be elsewhere."""
    if c.callee is not Callee.MODULE or not _weighted(other, ast.unparse(c.node.func), c):
        return None
    given = _input(c)
    inputs = ([given] if given is not None else []) + [(a, v) for a, v, item in _later_inputs(other, res, c)
                                                       if item is None]
    for a, v in inputs:
        unpacked = _unpacked_made(other, res, v)
        made = unpacked[0] if unpacked is not None else None
        node = _made_node(ff, made) if made is not None and made.path == ff.path else None
        if node is None or made is None or unpacked is None or _moves_its_input(other, c.func, c.node, a):
            continue
        moved = _model_at_call(other, res, c)
        if moved is None or other_arm_of_move(other, c.node, moved) or off_device_arm(other, [c.node]) \
                or flag_arms_apart(other, c.node, res.node, c.func):
            return None
        return node, v, made, unpacked[1], moved
    return None


def _made_node(ff: FileFlow, made: Origin) -> ast.Call | None:
    """The call of ``ff``'s tree at the line and column of ``made`` (an origin another
    file's analysis cites in ``ff``)."""
    return next((n for n in ast.walk(ff.tree) if isinstance(n, ast.Call) and n.lineno == made.line
                 and n.col_offset == made.column), None)


def _made_for_finding(ctx: Context, other: FileFlow, c: CallEvent, node: ast.Call, v: Value,
                      made: Origin, handed: Origin, moved: Origin) -> Finding:
    """The finding of :func:`_made_for_another_file`, at ``node`` (the make)."""
    name = ast.unparse(c.node.func)
    there = os.path.basename(other.path)
    f = ctx.finding(
        CODE, node,
        f"`{made.text}` makes a tensor on the CPU that is never moved, and `{name}` of "
        f"{there}, which is on the device, is called on it (handed in a tuple by `{handed.text}`): "
        f"on a GPU machine that call fails with \"Input type (torch.FloatTensor) and weight type "
        f"(torch.cuda.FloatTensor) should be the same\"; move it to the device as the others are")
    cite = _in_file(moved, other, ctx.flow)
    meet = Origin(Op.OUTPUT, c.node.lineno, c.node.col_offset, name, other.path)
    return replace(f, evidence=(
        ev.step(ctx, made._replace(path=None), "made here on the CPU and never moved"),
        ev.step(ctx, _in_file(handed, other, ctx.flow) or handed,
                f"the tuple holding it is handed in by `{handed.text}` at {ev.where(_cited(handed, other))}"),
        ev.step(ctx, cite or moved, f"`{name}` is {_placed(moved)} at {ev.where(_cited(moved, other))}"),
        ev.step(ctx, meet, f"they meet in `{name}(...)` at {ev.where(meet)}")))


def _cited(origin: Origin, other: FileFlow) -> Origin:
    """``origin`` of ``other``'s analysis, naming its file."""
    return origin if origin.path is not None else origin._replace(path=other.path)


def _param_batch_item(ff: FileFlow, res: ScopeResult, v: Value, depth: int = 0) -> Origin | None:
    """Where the run made ``v`` on the CPU when it is (an item of) what a loop over a
    loader parameter yields, unmoved (``for x, y in loader: model(x)`` in ``train(loader,
    model)``), and every call of the run passes a loader whose batches are made on the CPU
    there (:func:`loader_item_made`), itself or through its callers' own parameters."""
    if v.kinds is not None and v.kinds != {Kind.BATCH} or v.places is not None and ACCEL in v.places \
            or any(o.op not in (Op.PARAM, Op.BATCH) for o in v.origins):
        return None
    at = next((res.param_batches[id(o.node)] for o in v.origins
               if o.op is Op.PARAM and id(o.node) in res.param_batches), None)
    return _passed_loader(ff, res, at[0], at[1], depth) if at is not None else None


def _passed_loader(ff: FileFlow, res: ScopeResult, k: int, index: int | None, depth: int) -> Origin | None:
    """:func:`_param_batch_item` for parameter ``k`` of ``res``: the callers' loaders."""
    found: list[Origin | None] = []
    for other, caller, _, given in _callers(ff, res, k) or ():
        p = next(iter(given.places)) if given.places and len(given.places) == 1 else None
        if p is not None and p.where is Where.PARAM and depth < 3 and given.kinds in (None, {Kind.LOADER}):
            found.append(_in_file(_passed_loader(other, caller, int(p.ref), index, depth + 1), other, ff))
        else:
            found.append(_in_file(loader_item_made(given, index), other, ff))
    return found[0] if found and all(f is not None for f in found) else None


def _mapped_input(c: CallEvent) -> tuple[ast.expr, Origin] | None:
    """The mapping of ``model(**inputs)`` (``model(**inputs, labels=y)``) whose values are
    the model's inputs, and where they were made, when the analysis knows its values (a
    dict literal, ``dict(...)`` of keywords, a comprehension) and every one that may be a
    tensor was made on the CPU and never moved (:func:`_cpu_made`)."""
    for k, (name, v) in zip(c.node.keywords, c.keywords, strict=False):
        if name != "**" or v.elts is not None or v.keys is None and v.item is None:
            continue
        values = [x for _, x in v.keys or ()] + ([v.item] if v.item is not None else [])
        tensors = [x for x in values if x.kinds is None or x.may_be(Kind.TENSOR) or x.may_be(Kind.BATCH)]
        made = [_cpu_made(x) for x in tensors]
        first = made[0] if made else None
        if first is not None and all(m is not None for m in made):
            return k.value, first
    return None


def _tokenized(res: ScopeResult, a: ast.expr, v: Value) -> Origin | None:
    """Where ``a``, a name, was made by a call given ``return_tensors="pt"`` and no
    ``device`` (a tokenizer or a processor of transformers: its tensors are made on the
    CPU), when nothing else ever bound it and no ``a.to(...)`` / ``a.cuda()`` of the scope
    moves it in place."""
    if not isinstance(a, ast.Name) or len(v.origins) != 1 or v.origins[0].op is not Op.RETURNED:
        return None
    made = v.origins[0]
    call = made.node
    if not isinstance(call, ast.Call) or any(k.arg == "device" for k in call.keywords) or not any(
            k.arg == "return_tensors" and isinstance(k.value, ast.Constant) and k.value.value == "pt"
            for k in call.keywords):
        return None
    for c in res.calls.values():
        f = c.node.func
        if isinstance(f, ast.Attribute) and f.attr in ("to", "cuda") \
                and isinstance(f.value, ast.Name) and f.value.id == a.id:
            return None
    return made


def _joined_with_tokens(v: Value) -> Origin | None:
    """Where ``v`` was made, if it is a tensor on the CPU joined from tensors the run made
    there and the tensors of a tokenizer given ``return_tensors="pt"`` and no device
    (``torch.cat([prefix, tokenizer.encode(text, return_tensors="pt")])``), never moved."""
    if not v.is_(Kind.TENSOR) or v.places != {CPU} or v.basis is Basis.HINT:
        return None
    if not all(o.op is Op.MADE or o.op is Op.RETURNED and _pt_call(o.node) for o in v.origins):
        return None
    return ev.first(v, Op.MADE)


def _pt_call(call: ast.AST | None) -> bool:
    """A call given ``return_tensors="pt"`` and no ``device``."""
    return isinstance(call, ast.Call) and not any(k.arg == "device" for k in call.keywords) and any(
        k.arg == "return_tensors" and isinstance(k.value, ast.Constant) and k.value.value == "pt"
        for k in call.keywords)


def _cpu_made(v: Value) -> Origin | None:
    """Where ``v`` was made, if it is surely a tensor the run built on the CPU (in this file,
    or in another that a function or class of the run hands it from) and never moved (not a
    batch of unknown make, a parameter, a module's output or a loaded value; an item of a
    batch the run made on the CPU, :func:`made_item`, is)."""
    if v.is_(Kind.BATCH):
        return made_item(v)
    if not v.is_(Kind.TENSOR) or v.places != {CPU} or v.basis is Basis.HINT:
        return None
    if any(o.op in _NOT_MADE_HERE for o in v.origins):
        return None
    return ev.first(v, Op.MADE)


_NOT_MADE_HERE = frozenset({Op.MOVED, Op.BATCH, Op.LOADED, Op.PARAM, Op.OUTPUT, Op.RETURNED})


def _has_weights(ctx: Context, c: CallEvent, wrapped: bool = False) -> bool:
    """Not a loss, an activation or another module without weights (moved or not, it
    computes where its inputs are), nor a data-parallel wrapper (it scatters its inputs
    to the devices itself).  ``wrapped``: a wrapper the analysis holds where its module is
    (``nn.DataParallel(net)``, see :func:`~torchferry.check.flow.queries.rewrapped`) is
    judged by that module: one on the CPU fails a moved input as the module itself does."""
    return _weighted(ctx.flow, ctx.text(c.node.func), c, wrapped)


def _weighted(ff: FileFlow, func: str, c: CallEvent, wrapped: bool = False) -> bool:
    """:func:`_has_weights` of ``c``, a call of ``ff``'s analysis whose callee is written
    ``func``."""
    model = c.func
    if _data_parallel(model) and not (wrapped and model.places == {CPU}) and \
            not plain_on_one_gpu(ff, c.node, model):
        return False
    if _metric(model):
        return True  # (its state is where it was built, whatever its name says)
    made = next((o for o in reversed(model.origins) if o.op is Op.MADE), None)
    if made is not None and made.path is None and isinstance(made.node, ast.Call) \
            and builds_weights(ff, made.node) is False:
        return False  # (a container of such modules, a class of the run without weights)
    if made is not None and made.text.startswith("torch.nn."):
        layer = made.text.split("(", 1)[0].rsplit(".", 1)[-1]
        if layer not in PARAM_LAYERS and layer not in vocab.CONTAINERS:
            return False
    if any(o.op is Op.MADE and weightless_layer(o.text) for o in model.origins):
        return False  # (also a submodule in a caller's terms: ``self.drop`` of ``model``)
    return not _LOSSY.search(func)


def _made_finding(ctx: Context, c: CallEvent, a: ast.expr, moved: Origin, made: Origin,
                  first: bool = False, x: str | None = None, mapping: bool = False,
                  later: bool = False, handed: Origin | None = None) -> Finding:
    """The finding of :func:`_made_here` (``x``: how the input is written, when not ``a``;
    ``mapping``: ``a`` is the mapping of ``model(**a)``, whose values are the inputs;
    ``later``: ``a`` is an input after the first, checked against the others; ``handed``:
    the call that handed in the tuple ``a`` was unpacked from, :func:`_unpacked_made`)."""
    func = c.node.func
    name, x = ctx.text(func), x or ctx.text(a)
    if (c.callee is Callee.METHOD or _unseen_generate(c)) and isinstance(func, ast.Attribute):
        name = ctx.text(func.value)  # the module of ``model.decode(z)``
    # token ids meet an embedding's weight in ``index_select``, not a convolution's
    tokens = made.op is Op.RETURNED or isinstance(func, ast.Attribute) and func.attr == "generate"
    error = "Expected all tensors to be on the same device" if tokens or later else \
        "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same"
    how = f'`{made.text}` with `return_tensors="pt"`' if made.op is Op.RETURNED else f"`{made.text}`"
    what, fix = (f"the tensors of `{x}` were", f"`{{k: v.to(device) for k, v in {x}.items()}}`") \
        if mapping else (f"`{x}` was", f"`{x}.to(device)`")
    f = ctx.finding(
        CODE, c.node,
        f"`{name}` is on the device but {what} made on the CPU and never moved: on a GPU "
        f"machine this call fails with \"{error}\"; move {'them' if mapping else 'it'} too ({fix})")
    when = " the first time the loop runs it" if first else ""
    steps = (ev.step(ctx, moved, f"`{name}` is {_placed(moved)} at {ev.where(moved)}"),
             ev.step(ctx, made, f"`{x}` is made on the CPU ({how}) at {ev.where(made)} "
                     "and never moved"),
             *((ev.step(ctx, handed, f"the tuple it is unpacked from is handed in by `{handed.text}` "
                        f"at {ev.where(handed)}"),) if handed is not None else ()),
             ev.at(ctx, c.node, f"they meet in `{ctx.text(func)}(...)` here{when}"))
    return _one_gpu_wording(ctx, c, replace(f, evidence=steps))


def _one_gpu_wording(ctx: Context, c: CallEvent, f: Finding) -> Finding:
    """``f``, a finding of a model on the device at ``c``, saying which machines fail when
    the model is on the device only where no data-parallel wrapper is made (:func:`one_gpu_value`):
    with several GPUs the wrapper scatters the input itself."""
    ff: FileFlow = ctx.flow
    res = ff.scope_of(c.node)
    model = c.receiver if c.callee is Callee.METHOD else c.func
    if res is None or model is None or not _one_gpu_only(ff, res, model, c.node, 0):
        return f
    return replace(f, message=f.message.replace(
        "on a GPU machine", "on a machine with one GPU (where no data-parallel wrapper is made)", 1))


def _one_gpu_only(ff: FileFlow, res: ScopeResult, model: Value, at: ast.AST | None, depth: int) -> bool:
    """Does ``model``, or what a caller of the run hands for it (three calls deep), join a
    data-parallel wrapper made only with several GPUs (not one bound back to its module's
    name and used after, :func:`plain_on_one_gpu`, already judged as the module)?"""
    if _data_parallel(model):
        return not (at is not None and plain_on_one_gpu(ff, at, model))
    if not model.places or len(model.places) != 1 or depth >= 3:
        return False
    p = next(iter(model.places))
    if p.where is not Where.PARAM:
        return False
    return any(_one_gpu_only(other, caller, given, None, depth + 1)
               for other, caller, _, given in _callers(ff, res, int(p.ref)) or ())


def _placed(origin: Origin) -> str:
    """How an origin put the model on the device."""
    return "loaded onto the device" if origin.op is Op.LOADED else "moved to the device"


def _data_parallel(model: Value) -> bool:
    """Was ``model`` made by a data-parallel wrapper (``nn.DataParallel(net, ...)``,
    ``DistributedDataParallel``, ``FullyShardedDataParallel``)?  Its forward scatters
    (or moves) its inputs to its devices itself, so a CPU input is no mismatch."""
    return any(o.op is Op.MADE and o.text.split("(", 1)[0].rsplit(".", 1)[-1] in vocab.WRAPPERS
               for o in model.origins)


def _model_at_call(ff: FileFlow, res: ScopeResult, c: CallEvent) -> Origin | None:
    """Why the model ``c`` calls is on an accelerator (:func:`_model_on_device`), or, for a
    global of the file that the function calls unmoved, the move of it in place that
    precedes, in its caller, a call of the function (``train()`` runs ``model.to(device)``
    then ``test()``, which calls ``model(images)``)."""
    given = _input(c)
    if given is not None and _moves_its_input(ff, c.func, c.node, given[0]):
        return None  # (its ``forward`` puts the input where the module is)
    moved = _model_on_device(ff, res, c.func, at=c.node)
    func = c.node.func
    if moved is not None or not isinstance(func, ast.Name) or isinstance(res.node, ast.Module) \
            or func.id in _locals(res) or func.id in res.params or not c.func.places:
        return moved
    at_calls = ff.moved_before_a_call(res.node, func.id)
    return _model_on_device(ff, res, at_calls) if at_calls is not None else None


def _entry_arm_model(ff: FileFlow, res: ScopeResult, c: CallEvent, model: Value) -> Origin | None:
    """For a global model a function calls (``model(x)``, ``model.generate(x)``), its move in
    place in the script's ``if __name__ == "__main__":`` arm that every run of the function
    follows (:func:`entry_arm_move`)."""
    func = c.node.func
    name = func if isinstance(func, ast.Name) else func.value if isinstance(func, ast.Attribute) else None
    if not isinstance(name, ast.Name) or isinstance(res.node, ast.Module) \
            or name.id in _locals(res) or name.id in res.params:
        return None
    return entry_arm_move(ff, res.node, name.id, model)


def _moved_by_forward(ff: FileFlow, call: ast.Call, arg: ast.expr) -> bool:
    """:func:`_moves_its_input` for ``call`` as the device-flow analysis saw it (False
    where no scope evaluated it)."""
    res = ff.scope_of(call)
    c = res.calls.get(id(call)) if res is not None else None
    return c is not None and c.callee is Callee.MODULE and _moves_its_input(ff, c.func, call, arg)


def _unmet_inputs(ff: FileFlow, call: ast.Call) -> frozenset[int]:
    """:func:`~torchferry.check.flow.weighed.unmet_inputs` of ``call`` as the device-flow
    analysis saw it (none where no scope evaluated it as a module call)."""
    res = ff.scope_of(call)
    c = res.calls.get(id(call)) if res is not None else None
    return unmet_inputs(ff, res, c) if res is not None and c is not None and c.callee is Callee.MODULE \
        else frozenset()


def _moves_its_input(ff: FileFlow, model: Value, call: ast.Call, arg: ast.expr) -> bool:
    """Does the module ``model`` put the input ``arg`` of ``call`` where it is itself?  Every
    make of it is a module class of the run (moves of it aside) whose ``forward`` moves the
    parameter ``arg`` is bound to before that meets the weights (``x = x.to(self.device)``,
    :func:`moves_own_param`): a CPU input is then no mismatch."""
    res = ff.scope_of(call)
    classes = _module_classes(ff, res, model, 0) if res is not None else None
    if not classes:
        return False
    for info in classes:
        found = info.method("forward")
        bound = bound_arguments(call, param_names(found[1])) if found is not None else {}
        k = next((i for i, a in bound.items() if a is arg), 0)
        if not moves_own_param(ff, info, "forward", k):
            return False
    return bool(classes)


def _module_classes(ff: FileFlow, res: ScopeResult, model: Value, depth: int) -> list[ClassInfo] | None:
    """The module classes of the run that every make of ``model`` is (moves of it aside),
    a parameter's through every call of the run, three calls deep; None when one make is
    anything else or not known (:func:`_callers`)."""
    makes = _module_makes(ff, res, model, depth)
    return None if makes is None else [info for _, info, _ in makes]


def _module_makes(ff: FileFlow, res: ScopeResult, model: Value,
                  depth: int) -> list[tuple[FileFlow, ClassInfo, ast.Call]] | None:
    """:func:`_module_classes`, each with the construction that makes it and its file."""
    if len(model.places or ()) == 1 and next(iter(model.places or ())).where is Where.PARAM:
        if depth >= 3 or any(o.op is not Op.PARAM for o in model.origins):
            return None
        p = next(iter(model.places or ()))
        found = [_module_makes(other, caller, given, depth + 1)
                 for other, caller, _, given in _callers(ff, res, int(p.ref)) or ()]
        if not found or any(f is None for f in found):
            return None
        return [m for f in found for m in f or ()]
    makes = []
    for o in model.origins:
        node = o.node
        if not isinstance(node, ast.Call):
            return None
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("to", "cuda"):
            continue  # (a move of the module itself)
        made = ff if o.path is None else ff.project.file_flow(o.path) if ff.project is not None else None
        info = made.class_called(node) if made is not None else None
        if made is None or info is None or not info.is_module:
            return None
        makes.append((made, info, node))
    return makes


def _model_on_device(ff: FileFlow, res: ScopeResult, model: Value,
                     depth: int = 0, at: ast.AST | None = None, handed: ast.AST | None = None,
                     ) -> Origin | None:
    """Why ``model`` is on an accelerator: its move (in this scope or one a call of this
    file passes it through: ``train(model.to(device), ...)``, or a caller's parameter moved
    in the true arm of a fixed device flag before it hands it on: :func:`param_flag_move`),
    or None when not known.  ``self`` of a module's method is where an instance the run
    moves is, by a move that can have happened before ``at``, the node of ``res`` that uses
    it, when given (:meth:`FileFlow.self_placed`); ``handed``: the call of ``res`` that
    hands ``model`` to the function where it is used."""
    if not model.places:
        return None
    site = at if at is not None else handed
    if _data_parallel(model) and not (at is not None and plain_on_one_gpu(ff, at, model)):
        # (a data-parallel wrapper moves its inputs where its replicas are; where it is made
        # only with several GPUs, the plain module is used with one: :func:`one_gpu_value`)
        plain = one_gpu_value(ff, res, site, model) if site is not None and depth < 3 else None
        return _model_on_device(ff, res, plain, depth + 1, at, handed) if plain is not None else None
    if all(not p.symbolic for p in model.places):  # moved (or loaded) to a device the code chose
        if not model.may_live(Where.ACCEL):
            return None
        placed = ev.latest(model, Op.MOVED, Op.LOADED)
        return placed if placed is not None and (placed.op is Op.MOVED or placed.to == model.places) else None
    held = ff.self_placed(res, model, at)  # (``self`` of a module's method: where the run moves it)
    if held is not model:
        return _model_on_device(ff, res, held, depth + 1)
    flagged = param_flag_move(ff, model, site) if site is not None else None
    return flagged if flagged is not None else _device_from_callers(ff, res, model, depth)


def _device_from_callers(ff: FileFlow, res: ScopeResult, model: Value, depth: int) -> Origin | None:
    """:func:`_from_callers` for :func:`_model_on_device`, each caller's argument read with
    the call that hands it on (so that a move of the caller's own parameter in the true arm
    of a fixed device flag before that call counts)."""
    if not model.places or len(model.places) != 1 or depth >= 3:
        return None
    p = next(iter(model.places))
    if p.where is not Where.PARAM:
        return None
    found = []
    for other, caller, call_id, given in _callers(ff, res, int(p.ref)) or ():
        c = caller.calls.get(call_id)
        handed = c.node if c is not None else None
        found.append(_in_file(_model_on_device(other, caller, given, depth + 1, handed=handed), other, ff))
    return found[0] if found and all(f is not None for f in found) else None


def _item_finding(ctx: Context, c: CallEvent, a: ast.expr, v: Value, moved: Origin,
                  other: CallEvent, via: CallEvent | None = None) -> Finding:
    """The finding of a model on the device called on an unmoved item of a batch (``via``:
    the model's call inside the method of the class that ``c`` calls)."""
    name, x = ctx.text((via or c).node.func), ctx.text(a)
    handed = f" that `{ctx.text(c.node.func)}` hands to it" if via is not None else ""
    f = ctx.finding(
        CODE, c.node,
        f"`{name}` is on the device but `{x}`, an item of the loader's batch{handed}, is never moved "
        f"(the batch's other items are: `{ctx.text(other.node)}`): on a GPU machine this call "
        f"fails with \"Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) "
        f"should be the same\"; move it too (`{x}.to(device)`)")
    batch = ev.first(v, Op.BATCH)
    steps = [ev.step(ctx, moved, f"`{name}` is {_placed(moved)} at {ev.where(moved)}")]
    if batch is not None:
        steps.append(ev.step(ctx, batch, f"`{x}` comes from the batch at {ev.where(batch)} and is never moved"))
    steps.append(ev.at(ctx, other.node, "another item of that batch is moved here"))
    steps.append(ev.at(ctx, c.node, f"they meet in `{name}(...)` here" if via is None
                       else f"it is handed here to `{ctx.text(c.node.func)}`, which calls `{name}` on it"))
    return _one_gpu_wording(ctx, c, replace(f, evidence=tuple(steps)))


def _handed_to_a_model(ctx: Context) -> Iterator[Finding]:
    """A call of a function or method of this file (or of a function of another file of
    the run that is given the module) given, by position or keyword, an
    unmoved item of a loader's batch (another item of the batch moved) or a tensor made on
    the CPU, which the callee hands unchanged -- through its own calls, a loop's first
    round -- to a module with weights that the analysis places on an accelerator
    (``net.train(x)`` -> ``layer.train(h)`` -> ``self.forward(x)``, see
    :mod:`torchferry.check.flow.feeds`)."""
    ff: FileFlow = ctx.flow
    for res in list(ff.results()):  # (all interpreted first: the file's call sites known)
        moves = batch_moves(res)
        for c in list(res.calls.values()):
            if c.callee not in (Callee.FUNCTION, Callee.METHOD):
                continue
            for given, v, feed in call_feeds(ff, res, c):
                a = given.node
                loop = unmoved_item(v)
                item = loop is not None and id(loop) in moves and not whole_batch_of(a, loop) \
                    and not _unsure_item(ff, res, a, loop)
                made = None if item else _cpu_made(v)
                if not item and made is None:
                    continue
                inner = feed.call._replace(func=feed.module)
                if not _weighted(ff, _feed_text(ctx, feed, feed.call.node.func), inner):
                    continue
                moved = _model_on_device(ff, res, feed.module, at=c.node)
                if moved is None or _moved_to_its_input(feed):
                    continue
                yield _handed_finding(ctx, c, given, v, moved, feed,
                                      moves[id(loop)][0] if item and loop is not None else None, made,
                                      _sibling_move(feed) if feed.path is None else None)
                break


def _feed_text(ctx: Context, feed: Feed, node: ast.AST) -> str:
    """The source text of ``node``, a node of the function that runs ``feed``'s module
    (of another file: as the tree spells it)."""
    return ctx.text(node) if feed.path is None else ast.unparse(node)


def _moved_to_its_input(feed: Feed) -> bool:
    """Is the module of ``feed`` moved, by every move it has, to the device of the very
    tensor its call takes (``resampler = resampler.to(audio.device)``, then
    ``resampler(audio)``)?  Only where the call takes one positional argument and nothing
    else, a parameter of the function that runs it which that function never rebinds, and
    every move is written in that function as ``.to(<it>.device)``: the module is then
    wherever the input is, whatever the caller gives."""
    call, fn = feed.call.node, feed.scope.node
    if len(call.args) != 1 or call.keywords or not isinstance(call.args[0], ast.Name) or \
            not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return False
    name = call.args[0].id
    a = fn.args
    if name not in {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)} or _rebinds(fn, name):
        return False
    moves = [o for o in feed.module.origins if o.op is Op.MOVED]
    return bool(moves) and all(
        o.path is None and isinstance(o.node, ast.Call) and _within(o.node, fn) and
        _to_device_of(o.node, name) for o in moves)


def _to_device_of(move: ast.Call, name: str) -> bool:
    """Is ``move`` ``<module>.to(<name>.device)`` (or ``.to(device=<name>.device)``)?"""
    if not isinstance(move.func, ast.Attribute) or move.func.attr != "to":
        return False
    given = [*move.args, *(k.value for k in move.keywords if k.arg == "device")]
    others = [k for k in move.keywords if k.arg != "device"]
    return len(given) == 1 and not others and isinstance(d := given[0], ast.Attribute) and \
        d.attr == "device" and isinstance(d.value, ast.Name) and d.value.id == name


def _rebinds(fn: ast.AST, name: str) -> bool:
    """Does the body of ``fn`` (or a function nested in it, through ``nonlocal``) bind or
    delete ``name``?"""
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
            return True
        if isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names:
            return True
        if isinstance(n, ast.arg) and n.arg == name and n is not _own_arg(fn, name):
            return True  # (a nested function or lambda taking the name: rebinds it there only,
            #   but its reads are not the parameter's either; kept unsure)
    return False


def _own_arg(fn: ast.AST, name: str) -> ast.arg | None:
    """The parameter ``name`` of ``fn`` itself."""
    a = getattr(fn, "args", None)
    if not isinstance(a, ast.arguments):
        return None
    return next((x for x in (*a.posonlyargs, *a.args, *a.kwonlyargs) if x.arg == name), None)


def _within(node: ast.AST, outer: ast.AST) -> bool:
    """Whether ``node`` lies inside ``outer`` (a module holds every node) by its lines."""
    if isinstance(outer, ast.Module):
        return True
    start, end = getattr(outer, "lineno", 0), getattr(outer, "end_lineno", None) or 0
    return start <= getattr(node, "lineno", -1) <= end


def _sibling_move(feed: Feed) -> Origin | None:
    """Where the function that runs the module moves another of the module's inputs to a
    device (``input_solvents.unsqueeze(0).to(self.device)`` before ``self.model(rxn_fp,
    input_solvents, ...)``): that function takes it on itself to put the module's inputs
    where the module is, so the input it hands on unmoved is missing a move there."""
    call, fn = feed.call, feed.scope.node
    lines = range(getattr(fn, "lineno", 0), (getattr(fn, "end_lineno", None) or 0) + 1)
    given = [*call.args[1:], *(v for name, v in call.keywords if name != "**")]
    for v in given:
        if not v.places or not v.may_live(Where.ACCEL) or any(p.symbolic for p in v.places):
            continue
        o = ev.latest(v, Op.MOVED)
        if o is not None and o.path is None and o.node is not None and o.line in lines:
            return o
    return None


def _handed_finding(ctx: Context, c: CallEvent, given: Arg, v: Value, moved: Origin, feed: Feed,
                    other: CallEvent | None, made: Origin | None, sibling: Origin | None) -> Finding:
    """The finding of an input left on the CPU that a call hands on to a model on the
    device (``other``: the move of another item of its batch; ``made``: where it was made;
    ``sibling``: the move of another of the model's inputs beside the model's call, which
    puts the finding there rather than at the outermost call)."""
    name, x, call = _feed_text(ctx, feed, feed.call.node.func), ctx.text(given.node), ctx.text(c.node.func)
    if other is not None:
        what = f"an item of the loader's batch, is never moved (the batch's other items are: `{ctx.text(other.node)}`)"
    else:
        what = f"made on the CPU (`{made.text if made else x}`), is never moved"
    error = ("on a GPU machine this call fails with \"Input type (torch.FloatTensor) and weight type "
             "(torch.cuda.FloatTensor) should be the same\" (or \"Expected all tensors to be on the "
             "same device\")")
    if sibling is None:
        f = ctx.finding(CODE, c.node, f"`{call}(...)` hands `{x}` to `{name}`, which is on the device, "
                        f"but `{x}`, {what}: {error}; move it too (`{x}.to(device)`)")
    else:
        inner = feed.call.node.args[0] if feed.call.node.args else feed.call.node
        y = ctx.text(inner)
        f = ctx.finding(CODE, feed.call.node, f"`{name}` is on the device and this function moves its other "
                        f"inputs there (`{ctx.text(sibling.node) if sibling.node else sibling.text}`), but not `{y}`, which `{call}(...)` hands "
                        f"it unchanged at line {c.node.lineno} (`{x}`, {what}): {error}; move `{y}` here too, "
                        "as the others")
    steps = [ev.step(ctx, moved, f"the model is {_placed(moved)} at {ev.where(moved)}")]
    source = ev.first(v, Op.BATCH) if other is not None else made
    if source is not None:
        steps.append(ev.step(ctx, source, f"`{x}` comes from {ev.where(source)} and is never moved"))
    if other is not None:
        steps.append(ev.at(ctx, other.node, "another item of that batch is moved here"))
    by = f" as {given.how()}" if given.keyword is not None else ""
    steps.append(ev.at(ctx, c.node, f"it is handed here to `{call}`{by}"))
    if sibling is not None:
        steps.append(ev.step(ctx, sibling, "another input of the model is moved to the device here"))
    last = f"which gives it, unchanged, to `{name}(...)` here"
    node = feed.call.node
    steps.append(ev.at(ctx, node, last) if feed.path is None else
                 Evidence(last, node.lineno, node.col_offset, feed.path))
    return replace(f, evidence=tuple(steps))


def _met_in_a_helper(ctx: Context) -> Iterator[Finding]:
    """A call of a function or method of this file (``calculat_acc(outputs, labels)``) that
    hands a model's output on the device to one parameter and a tensor surely on the CPU to
    another, where the callee makes the two meet in an operation that wants one device
    (:func:`~torchferry.check.flow.meetings.param_meetings`: ``torch.equal(i, j)`` of
    ``zip(target, output)``, or through the callee's own calls)."""
    ff: FileFlow = ctx.flow
    for res in list(ff.results()):  # (all interpreted first: the file's call sites known)
        moves = batch_moves(res)
        for c in list(res.calls.values()):
            if c.callee not in (Callee.FUNCTION, Callee.METHOD) or len(c.node.args) + len(c.node.keywords) < 2:
                continue
            written = [*c.node.args, *(k.value for k in c.node.keywords)]
            if not any(_output_on_device(ctx, res, res.value(x)) is not None for x in written):
                continue
            target = callee_of(ff, res, c)
            outs = {k: (a.node, o) for k, a in target.args.items()
                    if (o := _output_on_device(ctx, res, res.value(a.node))) is not None} if target else None
            if target is None or not outs:
                continue
            callee, bound = target.callee, target.bound
            cpus = {k: (a.node, m) for k, a in target.args.items() if k not in outs and str(k) in bound and (
                m := _surely_on_the_cpu(ff, res, c, callee.node, k, bound[str(k)], moves)) is not None}
            found = _helper_mismatch(ctx, c, given_tensors(ff, callee, bound, target.first), outs, cpus) \
                if cpus else None
            if found is not None:
                yield found


def _helper_mismatch(ctx: Context, c: CallEvent, callee: ScopeResult,
                     outs: dict[int, tuple[ast.expr, tuple[CallEvent, Origin]]],
                     cpus: dict[int, tuple[ast.expr, tuple[Origin, Origin | None]]]) -> Finding | None:
    """The finding of :func:`_met_in_a_helper` for the call ``c`` (None: none): ``outs``,
    the parameters of ``callee`` that the call gives a model's output on the device,
    ``cpus``, those it gives a tensor surely on the CPU (each with the argument)."""
    for m in param_meetings(ctx.flow, callee):
        for d, h in ((m.first, m.second), (m.second, m.first)):
            if d in outs and h in cpus:
                return _helper_finding(ctx, c, m, outs[d][0], cpus[h][0], outs[d][1], cpus[h][1])
    return None


def _output_on_device(ctx: Context, res: ScopeResult, v: Value | None) -> tuple[CallEvent, Origin] | None:
    """The call of a model with weights on a device the code chose (:func:`_model_at_call`)
    whose output ``v``, a tensor, is, with the model's move."""
    if v is None or not v.origins or v.origins[0].op is not Op.OUTPUT or Kind.TENSOR not in (v.kinds or ()):
        return None
    mc = res.calls.get(id(v.origins[0].node))
    if mc is None or mc.callee is not Callee.MODULE or not _has_weights(ctx, mc):
        return None
    moved = _model_at_call(ctx.flow, res, mc)
    return (mc, moved) if moved is not None else None


def _surely_on_the_cpu(ff: FileFlow, res: ScopeResult, c: CallEvent, fn: ast.AST, h: int, v: Value,
                       moves: dict[int, list[CallEvent]]) -> tuple[Origin, Origin | None] | None:
    """Where ``v``, given by ``c`` to parameter ``h`` of ``fn``, was made on the CPU
    (:func:`_cpu_made`, of one or more dimensions), or the batch it is an unmoved item of,
    with the move of an item of a batch that another call of the file gives the same
    parameter (the file moves those: ``calculat_acc(outputs, labels)`` after
    ``labels.to(device)`` in the training loop); None when not sure."""
    made = _cpu_made(v)
    if made is not None:
        node = made.node
        if made.op is not Op.MADE or not isinstance(node, ast.Call) or zero_dim_made(
                ff.qualname(node.func), node, lambda e: not isinstance(e, (ast.List, ast.Tuple))):
            return None
        return made, None
    loop = unmoved_item(v)
    a = next((x for x in [*c.node.args, *(k.value for k in c.node.keywords)] if res.value(x) is v), None)
    if loop is None or id(loop) in moves or a is None or whole_batch_of(a, loop) or \
            not _no_loader_moves(ff.tree) or _unsure_item(ff, res, a, loop):
        return None
    batch = ev.first(v, Op.BATCH)
    others = [ev.latest(w, Op.MOVED) for _, w in ff.arguments(fn, h) or ()
              if w.is_(Kind.BATCH) and w.may_live(Where.ACCEL)]
    other = next((o for o in others if o is not None), None)
    return (batch, other) if batch is not None and other is not None else None


def _helper_finding(ctx: Context, c: CallEvent, m: ParamMeeting, out: ast.expr, cpu: ast.expr,
                    on_device: tuple[CallEvent, Origin], made: tuple[Origin, Origin | None]) -> Finding:
    """The finding of :func:`_met_in_a_helper`: at the call, with the meeting in the callee."""
    mc, moved = on_device
    name, helper, x, y = ctx.text(mc.node.func), ctx.text(c.node.func), ctx.text(out), ctx.text(cpu)
    line = getattr(m.node, "lineno", 0)
    f = ctx.finding(
        CODE, c.node,
        f"`{x}`, the output of `{name}` on the device, and `{y}`, left on the CPU, meet in "
        f"`{helper}` (line {line}): on a GPU machine this fails with \"Expected all tensors to be "
        f"on the same device\"; move `{y}` too (`{y}.to(device)`)")
    origin, other = made
    steps = [ev.step(ctx, moved, f"`{name}` is {_placed(moved)} at {ev.where(moved)}"),
             ev.at(ctx, mc.node, f"`{x}` is its output, on the device")]
    steps.append(ev.step(ctx, origin, f"`{y}` comes from the batch at {ev.where(origin)} and is never moved"
                         if origin.op is Op.BATCH else f"`{y}` is made on the CPU at {ev.where(origin)}"))
    if other is not None:
        steps.append(ev.step(ctx, other, f"the batch item the file gives `{helper}` elsewhere is moved here"))
    steps += [ev.at(ctx, v.node, f"handed on to `{ctx.text(v.node.func)}` here") for v in m.via]
    steps.append(ev.at(ctx, m.node, "they meet here"))
    return replace(f, evidence=tuple(steps))


_REGISTERING_CONTAINER = {Container.LIST: "nn.ModuleList", Container.TUPLE: "nn.ModuleList",
                          Container.DICT: "nn.ModuleDict"}


def _unregistered_error(u: UnregisteredLayers) -> str:
    """PyTorch's error where a CUDA input meets the CPU weights of ``u``'s layers."""
    if all(name is not None and name.startswith("Conv") for name in u.layers):
        return '"Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same"'
    if None not in u.layers:
        return '"Expected all tensors to be on the same device"'
    return "tensors on two devices"


def _unregistered_layer_called(ctx: Context) -> Iterator[Finding]:
    """A layer with weights kept in a plain list, tuple or dict attribute of the module,
    called in one of its methods: no ``.to(device)`` of the module reaches it
    (:func:`~torchferry.check.flow.unregistered.unregistered_layers`)."""
    for u in unregistered_layers(ctx.syntax):
        kind, holder = u.kind.value, _REGISTERING_CONTAINER[u.kind]
        for call in u.calls:
            f = ctx.finding(
                CODE, call,
                f"`{ctx.text(call.func)}` is a layer kept in the plain {kind} `self.{u.attr}`, "
                f"which registers nothing: `.to(device)` of `{u.cls.name}` leaves its weights on "
                "the CPU (and `parameters()` does not list them, so they are never trained nor "
                f"saved); on a GPU machine this call fails with {_unregistered_error(u)}; keep "
                f"the layers in `{holder}(...)`")
            steps = (ev.at(ctx, u.stmt, f"`self.{u.attr}` is a plain {kind} of layers built at "
                           f"line {u.stmt.lineno}: not submodules of `{u.cls.name}`"),
                     ev.at(ctx, call, "one of them is called here, with the module's weights "
                           "and inputs wherever the module is moved"))
            yield replace(f, evidence=steps)

