"""The model catalog each Claude Code version carries: the name it shows a model by and what
writing a million tokens to the model's 5 minute prompt cache costs (its list price, in USD).

Read from the catalog built into each CLI and checked with it: ``/model NAME`` prints the
name (measured for every model of the profiles' model tables, with 2.1.240 and 2.1.332), and
PreModelSwitch reads ``pricing: "catalog"`` for a catalog model, ``"default"`` (priced at
`DEFAULT_CACHE_WRITE_USD`) for another (measured with 2.1.332). Claude Code 2.1.240 also names
a model it does not list by the listed model its id extends (``claude-sonnet-5-5`` is
``Sonnet 5``): those names are its `CatalogModel` rows' `aliases`.

Each version also has its names for models (`ModelAlias`: ``sonnet``, ``best``,
``opusplan``, ``default`` ...), listed in that order by ``/model`` alone and measured with
``/model NAME`` for every one of them: the model the requests go to, the name the output gives,
the ``requested_model`` and the models PreModelSwitch is asked about.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

#: The cache-write price of a model the catalog does not list (measured: an unknown id, and
#: ``claude-haiku-5`` under 2.1.332, on a resumed session's estimate).
DEFAULT_CACHE_WRITE_USD: Final = 6.25


@dataclass(frozen=True, slots=True)
class CatalogModel:
    """One model of a version's catalog."""

    model: str
    name: str
    #: USD per million tokens written to the 5 minute cache.
    cache_write: float
    #: Above this many prompt tokens the model has its long-prompt price (None: no such price).
    long_prompt: tuple[int, float] | None = None
    #: Ids the version does not list but names as this model (2.1.240's prefix match).
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ModelAlias:
    """A name a version takes for one of its models (``/model NAME``, a skill's or
    subagent's ``model``)."""

    name: str
    model: str
    #: How ``/model``'s output names it (None: by its model's catalog name).
    label: str | None = None
    #: Models PreModelSwitch is asked about after `model`, one hook round each, in order
    #: (2.1.332: ``haiku`` then Sonnet, ``opusplan`` then the Opus of plan mode); a deny of
    #: any of them keeps the session's model. In plan mode `planning` is asked about first
    #: (`ClaudeCodeProfile.switch_models`).
    also: tuple[str, ...] = ()
    #: The hooks read the name as ``requested_model`` (False: ``null``, for ``default``).
    requested: bool = True
    #: The model requests go to in plan mode instead of `model` (``opusplan``'s Opus).
    planning: str | None = None


#: What both catalogs list alike.
_COMMON: Final = (
    CatalogModel("claude-3-5-haiku", "Haiku 3.5", 1.0),
    CatalogModel("claude-3-5-sonnet", "Sonnet 3.5", 3.75),
    CatalogModel("claude-3-7-sonnet", "Sonnet 3.7", 3.75),
    CatalogModel("claude-sonnet-4-0", "Sonnet 4", 3.75),
    CatalogModel("claude-sonnet-4-5", "Sonnet 4.5", 3.75),
    CatalogModel("claude-sonnet-4-6", "Sonnet 4.6", 3.75),
    CatalogModel("claude-opus-4-0", "Opus 4", 18.75),
    CatalogModel("claude-opus-4-1", "Opus 4.1", 18.75),
    CatalogModel("claude-opus-4-5", "Opus 4.5", 6.25),
    CatalogModel("claude-opus-4-6", "Opus 4.6", 6.25),
    CatalogModel("claude-opus-4-7", "Opus 4.7", 6.25),
    CatalogModel("claude-opus-4-8", "Opus 4.8", 6.25),
    CatalogModel("claude-haiku-4-5", "Haiku 4.5", 1.25),
)

CATALOG_2_1_240: Final = (
    *_COMMON,
    CatalogModel("claude-sonnet-5", "Sonnet 5", 2.5, aliases=("claude-sonnet-5-5",)),
    CatalogModel("claude-opus-5", "Opus 5", 6.25, aliases=("claude-opus-5-5",)),
    CatalogModel(
        "claude-fable-5", "Fable 5", 12.5, aliases=("claude-fable-5-1", "claude-fable-5-2")
    ),
    CatalogModel(
        "claude-mythos-5", "Mythos 5", 12.5, aliases=("claude-mythos-5-1", "claude-mythos-5-2")
    ),
)

CATALOG_2_1_332: Final = (
    *_COMMON,
    CatalogModel("claude-haiku-5-5", "Haiku 5.5", 0.125, long_prompt=(100_000, 0.625)),
    CatalogModel("claude-sonnet-5", "Sonnet 5", 2.5),
    CatalogModel("claude-sonnet-5-5", "Sonnet 5.5", 2.5),
    CatalogModel("claude-opus-5", "Opus 5", 6.25),
    CatalogModel("claude-opus-5-5", "Opus 5.5", 5.0),
    CatalogModel("claude-fable-5", "Fable 5", 12.5),
    CatalogModel("claude-fable-5-1", "Fable 5.1", 12.5),
    CatalogModel("claude-fable-5-2", "Fable 5.2", 10.0),
    CatalogModel("claude-mythos-5", "Mythos 5", 12.5),
    CatalogModel("claude-mythos-5-1", "Mythos 5.1", 12.5),
    CatalogModel("claude-mythos-5-2", "Mythos 5.2", 10.0),
)


#: 2.1.240's names, in the order ``/model`` alone lists them (measured: each one's model and
#: output).
ALIASES_2_1_240: Final = (
    ModelAlias("sonnet", "claude-sonnet-5"),
    ModelAlias("opus", "claude-opus-5"),
    ModelAlias("haiku", "claude-haiku-4-5-20251001"),
    ModelAlias("fable", "claude-fable-5"),
    ModelAlias("best", "claude-opus-5"),
    ModelAlias("sonnet[1m]", "claude-sonnet-5"),
    ModelAlias("opus[1m]", "claude-opus-5", "Opus 5 (1M context)"),
    ModelAlias("fable[1m]", "claude-fable-5"),
    ModelAlias(
        "opusplan", "claude-sonnet-5", "Opus in plan mode, else Sonnet", planning="claude-opus-5"
    ),
    ModelAlias("default", "claude-opus-5", "Opus 5 (1M context) (default)", requested=False),
)

ALIASES_2_1_332: Final = (
    ModelAlias("sonnet", "claude-sonnet-5-5"),
    ModelAlias("opus", "claude-opus-5-5"),
    ModelAlias("haiku", "claude-haiku-5-5", also=("claude-sonnet-5-5",)),
    ModelAlias("fable", "claude-fable-5-2"),
    ModelAlias("best", "claude-opus-5-5"),
    ModelAlias("sonnet[1m]", "claude-sonnet-5-5"),
    ModelAlias("opus[1m]", "claude-opus-5-5"),
    ModelAlias("fable[1m]", "claude-fable-5-2"),
    ModelAlias(
        "opusplan",
        "claude-sonnet-5-5",
        "Opus in plan mode, else Sonnet",
        also=("claude-opus-5-5",),
        planning="claude-opus-5-5",
    ),
    ModelAlias("default", "claude-opus-5-5", "Opus 5.5 (default)", requested=False),
)

#: Each table's catalog and names for models, by the version that has them
#: (`ClaudeCodeProfile.tables`).
CATALOGS: Final = {"2.1.240": CATALOG_2_1_240, "2.1.332": CATALOG_2_1_332}
ALIASES: Final = {"2.1.240": ALIASES_2_1_240, "2.1.332": ALIASES_2_1_332}


def listed(catalog: tuple[CatalogModel, ...], model: str) -> CatalogModel | None:
    """The row that lists `model` (an undated id) itself."""
    return next((row for row in catalog if row.model == model), None)


def named(catalog: tuple[CatalogModel, ...], model: str) -> CatalogModel | None:
    """The row whose name `model` is shown by: its own, else one it is an alias of."""
    return listed(catalog, model) or next((row for row in catalog if model in row.aliases), None)


def cache_write_usd(
    catalog: tuple[CatalogModel, ...], model: str, tokens: int
) -> tuple[float, str]:
    """What writing `tokens` to `model`'s 5 minute cache costs, rounded to 4 decimals as
    Claude Code rounds it, and the pricing that says where the price came from (``catalog``
    or ``default``)."""
    row = listed(catalog, model)
    price = DEFAULT_CACHE_WRITE_USD if row is None else row.cache_write
    if row is not None and row.long_prompt is not None and tokens > row.long_prompt[0]:
        price = row.long_prompt[1]
    return round(tokens * price / 1_000_000, 4), "default" if row is None else "catalog"
