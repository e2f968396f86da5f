"""What corpus/dialects/pydantic/{nested_discriminated_union,union_of_models}.json were made
with (`python3 corpus/dialects/emitters/pydantic_unions.py`, Pydantic 2.13.4): Pydantic's documented
nested discriminated union, and a `Union` of models without a discriminator."""
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


if __name__ == "__main__":
    # pydantic 2.13.4: pydantic/nested_discriminated_union.json and pydantic/union_of_models.json
    print(json.dumps({"nested_discriminated_union": TypeAdapter(Pet).json_schema(),
                      "union_of_models": TypeAdapter(Union[ByPath, ByUrl]).json_schema()}, indent=2))
