"""What corpus/dialects/pydantic/{nested_discriminated_union,union_of_models,many_fields_union}.json
were made with (`python3 corpus/dialects/emitters/pydantic_unions.py`, Pydantic 2.13.4): Pydantic's
documented nested discriminated union, a `Union` of models without a discriminator, and one
discriminated union of models used in many fields (as it is, in lists, optional, in a nested
model) of the commands of a root union, which Pydantic writes as the same `oneOf` of `$ref`s at
every use (SPEC §6 decision 73)."""
import json
from typing import Literal, Union, Annotated
from pydantic import BaseModel, Field, TypeAdapter
class BlackCat(BaseModel):
    pet_type: Literal['cat']
    color: Literal['black']
    black_name: str
class WhiteCat(BaseModel):
    pet_type: Literal['cat']
    color: Literal['white']
    white_name: str
class Dog(BaseModel):
    pet_type: Literal['dog']
    name: str
Cat = Annotated[Union[BlackCat, WhiteCat], Field(discriminator='color')]
Pet = Annotated[Union[Cat, Dog], Field(discriminator='pet_type')]
from typing import Optional


class ByPath(BaseModel):
    """Read a local file."""
    path: str


class ByUrl(BaseModel):
    """Fetch a URL."""
    url: str
    timeout: Optional[float] = None


class Circle(BaseModel):
    kind: Literal['circle']
    radius: float
    label: Optional[str] = None


class Rect(BaseModel):
    kind: Literal['rect']
    width: float
    height: float
    rounded: bool = False


class Polygon(BaseModel):
    kind: Literal['polygon']
    points: list[list[float]]
    closed: bool = True


Shape = Annotated[Union[Circle, Rect, Polygon], Field(discriminator='kind')]


class Layer(BaseModel):
    name: str
    background: Shape
    shapes: list[Shape]
    mask: Optional[Shape] = None


class Draw(BaseModel):
    """Draw shapes on the canvas."""
    action: Literal['draw']
    shape: Shape
    outline: Optional[Shape] = None
    shapes: list[Shape] = []
    clip: Optional[Shape] = None
    layer: Optional[Layer] = None


class Compare(BaseModel):
    """Compare two shapes."""
    action: Literal['compare']
    left: Shape
    right: Shape
    candidates: list[Shape] = []
    layers: list[Layer] = []


class Export(BaseModel):
    """Export a layer."""
    action: Literal['export']
    layer: Layer
    thumbnail: Optional[Shape] = None
    format: Literal['svg', 'png'] = 'svg'


Command = Annotated[Union[Draw, Compare, Export], Field(discriminator='action')]


if __name__ == "__main__":
    # pydantic 2.13.4: pydantic/nested_discriminated_union.json and pydantic/union_of_models.json
    # and pydantic/many_fields_union.json
    print(json.dumps({"nested_discriminated_union": TypeAdapter(Pet).json_schema(),
                      "union_of_models": TypeAdapter(Union[ByPath, ByUrl]).json_schema(),
                      "many_fields_union": TypeAdapter(Command).json_schema()}, indent=2))
